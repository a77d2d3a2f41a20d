// The fallback policy's two outcomes, used by the backend step (run.cpp) when
// a backend has neither a kernel nor a composite for a call.
#pragma once

#include <span>

#include "call/state.h"

namespace plexus {

// Raises Unsupported naming the op, dtype and backend, and what it does support;
// `cpu_tried` says the cpu fallback was looked at and lacked the kernel too.
[[noreturn]] void no_kernel(const Operator& kop, Device device, DType dtype, bool cpu_tried);

// Runs `kop` on the cpu with host copies of the arguments and writes the result
// back to `device` (policy `cpu`); raises like no_kernel when the cpu lacks it.
Tensor run_on_cpu(Dispatcher::State& st, const Operator& kop, Device device, DType dtype,
                  std::span<const Value> kargs);

}  // namespace plexus
