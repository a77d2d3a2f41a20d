// The kernels' side of the runtime (context.h).
#include "context.h"

#include <string>

#include "errors.h"
#include "runtime.h"

namespace plexus::gpu {

std::string device_name(int32_t device) {
  return std::string(PLEXUS_PLUGIN_NAME ":") + std::to_string(device);
}

gpuStream_t stream_of(const plexus_kernel_call& call) {
  return runtime().resolve(call.device_index, call.stream, call.op);
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

Workspace::Workspace(const plexus_kernel_call& call, size_t nbytes)
    : device_(call.device_index), stream_(stream_of(call)) {
  if (nbytes == 0) return;
  ptr_ = runtime().workspaces().acquire(device_, stream_, nbytes, &size_);
}

Workspace::~Workspace() {
  if (ptr_) runtime().workspaces().release(device_, stream_, ptr_);
}

}  // namespace plexus::gpu
