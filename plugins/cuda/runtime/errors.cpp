#include "errors.h"

#include <cstring>

#include "context.h"

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
  sdk::fail(status, device_name(device) + ": " + what + " failed: " + describe(e));
}

void use_device(int32_t device) {
  // Asks rather than caches: an application or library may change the
  // thread's device between our calls.
  int current = -1;
  if (gpuGetDevice(&current) == gpuSuccess && current == device) return;
  check_gpu(gpuSetDevice(device), device, PLEXUS_GPU_PREFIX "SetDevice");
}

}  // namespace plexus::gpu
