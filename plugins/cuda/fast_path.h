// Library fast paths (fast/: cuBLAS for the matmul family, cuDNN for conv2d
// and max_pool2d; cuda only): each claims an op before the kernel families register, is
// registered in place of the family's own kernel, and hands that kernel the
// calls it does not take (other layouts or dtypes, the library missing).
#pragma once

#include <cstdint>

#include "context.h"

namespace plexus::gpu {

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

#if defined(PLEXUS_GPU_CUDA)
// fast/install.cpp: loads cuBLAS and cuDNN (when built with them and not
// disabled by the plugin options "cublas" / "cudnn" = "off") and claims their ops.
void install_fast_paths(const plexus_host_api* host);
// Destroys the libraries' handles and unloads them (shutdown, before the runtime goes).
void remove_fast_paths();
#endif

}  // namespace plexus::gpu
