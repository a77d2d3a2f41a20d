// Runtime API failures as sdk::Error, with the device and what was attempted;
// for kernels, with the op too (check, check_launch).
#pragma once

#include <cstdint>
#include <string>

#include "gpu.h"
#include "plexus/plugin.hpp"

namespace plexus::gpu {

// "<error name> (<error string>)", or the name alone when both are the same
// (HIP 5.2 returns the name as the string).
std::string describe(gpuError_t e);

// Throws sdk::Error "<device>: <what> failed: <describe(e)>": OUT_OF_MEMORY
// for an allocation failure, DEVICE otherwise. Clears the runtime's last error
// first, so that a later launch check does not report this failure again.
[[noreturn]] void fail_gpu(gpuError_t e, int32_t device, const std::string& what);

// fail_gpu unless e is gpuSuccess; builds no string on success.
inline void check_gpu(gpuError_t e, int32_t device, const char* what) {
  if (e != gpuSuccess) fail_gpu(e, device, what);
}

// fail_gpu unless e is gpuSuccess, for a kernel call: "<device>: <op>: <what>
// failed: <describe(e)>".
void check(gpuError_t e, const plexus_kernel_call& call, const char* what);

// After PLEXUS_LAUNCH: throws like check() when the launch failed (bad grid,
// too much shared memory, a sticky error from earlier work), naming `kernel`.
void check_launch(const plexus_kernel_call& call, const char* kernel);

}  // namespace plexus::gpu
