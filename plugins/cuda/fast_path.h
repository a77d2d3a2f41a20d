// Library fast paths (fast/: cuBLAS for the matmul family, cuDNN for conv2d
// and max_pool2d; cuda only): each claims an op before the kernel families
// register; GpuBackend::register_kernel then registers, in place of the
// family's own kernel, a router that runs the fast path and hands the own
// kernel the calls it does not take (other layouts or dtypes, the library missing).
#pragma once

#include <cstdint>

#include "plexus/plugin.hpp"

namespace plexus::gpu {

// A registered kernel in C form, as a fast path keeps its fallback.
struct KernelRef {
  plexus_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  plexus_status operator()(const plexus_kernel_call& call) const { return fn(user_data, &call); }
};

struct FastPath {
  const char* op;   // "mm.out"
  uint32_t dtypes;  // PLEXUS_DTYPE_BIT mask of the dtypes it may take
  // Queues the call's work and returns true, or returns false (having done
  // nothing) to leave the call to the own kernel. Throws sdk::Error on failure.
  bool (*run)(const plexus_kernel_call& call);
};

// Claims fp.op for the fast path. Only during init, before the families register.
void claim(const FastPath& fp);
// Forgets every claim (shutdown).
void clear_fast_paths();

// The kernel the host gets for `op`: `own` itself, or, when a fast path has
// claimed op, its router, which falls back to `own` (and reports errors
// through `host`). Only during init.
KernelRef route(const char* op, KernelRef own, const plexus_host_api* host);

#if defined(PLEXUS_GPU_CUDA)
// fast/install.cpp: loads cuBLAS and cuDNN (when built with them and not
// disabled by the plugin options "cublas" / "cudnn" = "off") and claims their ops.
void install_fast_paths(const plexus_host_api* host);
// Destroys the libraries' handles and unloads them (shutdown, before the backend goes).
void remove_fast_paths();
#endif

}  // namespace plexus::gpu
