// The fallback policy's two outcomes, used by the backend step (run.cpp) when
// a backend has neither a kernel nor a composite for a call.
#pragma once

#include <span>
#include <string>

#include "call/state.h"

namespace plexus {

// Why the backend's own kernel did not run: it has none for the dtype, or it
// declined the call (KernelCall::declined), with the plugin's reason if any.
struct Missing {
  bool declined = false;
  std::string because;
};

// Raises Unsupported naming the op, dtype and backend, and what it does support;
// `cpu_tried` says the cpu fallback was looked at and lacked the kernel too.
[[noreturn]] void no_kernel(const Operator& kop, Device device, DType dtype, bool cpu_tried,
                            const Missing& why = {});

// Runs `kop` on the cpu with host copies of the arguments and writes the result
// back to `device` (policy `cpu`); raises like no_kernel when the cpu lacks it.
// Warns once per op, backend and dtype.
Tensor run_on_cpu(Dispatcher::State& st, const Operator& kop, Device device, DType dtype,
                  std::span<const Value> kargs, const Missing& why = {});

}  // namespace plexus
