// Registering C++ functions as kernels. A template trampoline gives each
// function the C signature and runs it under guard(), so an exception becomes
// a status and a message; the function itself just reads its arguments and
// writes its output:
//
//   void add_out(const plexus_kernel_call& call);
//   sdk::register_kernel<&add_out>(host, slot, "add.out", sdk::kFloatingDTypes);
#pragma once

#include <cstdint>
#include <string>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// A kernel written in C++: reads call.args, writes the output, throws on error.
using KernelFunction = void (*)(const plexus_kernel_call& call);

// The C kernel for Fn; user_data is the host table (for error messages).
template <KernelFunction Fn>
plexus_status kernel_trampoline(void* user_data, const plexus_kernel_call* call) noexcept {
  return guard(static_cast<const plexus_host_api*>(user_data), [&] { Fn(*call); });
}

// Registers Fn as the kernel of `op` on the device type in `slot` for the
// dtypes in dtype_mask. Throws Error when the host refuses (unknown op, an op
// kernels do not register on, a second registration). Only during init.
template <KernelFunction Fn>
void register_kernel(const plexus_host_api* host, int32_t slot, const char* op,
                     uint32_t dtype_mask) {
  check(host->register_kernel(host->host_ctx, slot, op, dtype_mask, &kernel_trampoline<Fn>,
                              const_cast<plexus_host_api*>(host)),
        std::string("register_kernel(\"") + op + "\")");
}

}  // namespace plexus::sdk
