// Runtime API failures as sdk::Error (errors.h).
#include "errors.h"

#include <cstring>

#include "device.h"

namespace plexus::gpu {

std::string describe(gpuError_t e) {
  const char* name = gpuGetErrorName(e);
  const char* text = gpuGetErrorString(e);
  std::string s = name ? name : "unknown error";
  if (text && (!name || std::strcmp(name, text) != 0)) s += std::string(" (") + text + ")";
  return s;
}

void fail_gpu(gpuError_t e, int32_t device, const std::string& what) {
  (void)gpuGetLastError();  // non-sticky errors would otherwise surface at the next launch check
  plexus_status status =
      e == gpuErrorMemoryAllocation ? PLEXUS_ERROR_OUT_OF_MEMORY : PLEXUS_ERROR_DEVICE;
  sdk::fail(status, "{}: {} failed: {}", device_name(device), what, describe(e));
}

void check(gpuError_t e, const plexus_kernel_call& call, const char* what) {
  if (e == gpuSuccess) return;
  fail_gpu(e, call.device_index, std::string(call.op) + ": " + what);
}

void check_launch(const plexus_kernel_call& call, const char* kernel) {
  gpuError_t e = gpuGetLastError();
  if (e != gpuSuccess)
    fail_gpu(e, call.device_index, std::string(call.op) + ": launch of " + kernel);
}

}  // namespace plexus::gpu
