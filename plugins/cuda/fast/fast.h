// The cuda plugin's library fast paths (install.cpp picks them by the
// build and the plugin options; each file claims its ops, see
// fast_path.h).
#pragma once

#include "plexus/plugin.h"

namespace plexus::gpu {

// cublas.cpp: mm.out, bmm.out, addmm.out. cuBLAS itself loads on first use.
void install_cublas(const plexus_host_api* host);
void remove_cublas();
// cudnn.cpp: conv2d.out. cuDNN itself loads on first use.
void install_cudnn(const plexus_host_api* host);
void remove_cudnn();

}  // namespace plexus::gpu
