// context.h: how the kernel families of the gpu plugins (cuda, hip, simt)
// register their kernels during init (Registrar, fast_path.cpp).
#pragma once

#include <cstdint>

#include "plexus/plugin.hpp"

namespace plexus::gpu {

// A kernel as the families write it: reads call.args, launches, throws
// sdk::Error on failure (the trampoline turns it into a status and message).
using KernelFunction = void (*)(const plexus_kernel_call& call);

// A registered kernel in C form, as a fast path keeps its fallback.
struct KernelRef {
  plexus_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  plexus_status operator()(const plexus_kernel_call& call) const { return fn(user_data, &call); }
};

// Runs Fn under sdk::guard; user_data is the host table.
template <KernelFunction Fn>
plexus_status kernel_trampoline(void* user_data, const plexus_kernel_call* call) noexcept {
  return sdk::guard(static_cast<const plexus_host_api*>(user_data), [&] { Fn(*call); });
}

// Registration of the kernel families during init (fast_path.cpp).
class Registrar {
 public:
  Registrar(const plexus_host_api* host, int32_t slot) : host_(host), slot_(slot) {}

  // Registers Fn as the kernel of `op` (e.g. "mm.out") for the dtypes in
  // `dtypes` (PLEXUS_DTYPE_BIT mask). When a library fast path (cuBLAS,
  // cuDNN) has claimed the op, the fast path is registered instead and calls
  // Fn for the layouts and dtypes it does not take. Throws sdk::Error when the
  // host refuses.
  template <KernelFunction Fn>
  void kernel(const char* op, uint32_t dtypes) const {
    add(op, dtypes, KernelRef{&kernel_trampoline<Fn>, const_cast<plexus_host_api*>(host_)});
  }
  void add(const char* op, uint32_t dtypes, KernelRef own) const;

  const plexus_host_api* host() const { return host_; }
  int32_t slot() const { return slot_; }

 private:
  const plexus_host_api* host_;
  int32_t slot_;
};

}  // namespace plexus::gpu
