// Runtime API failures as sdk::Error, with the device and what was attempted.
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

// Makes `device` current on this thread.
void use_device(int32_t device);

}  // namespace plexus::gpu
