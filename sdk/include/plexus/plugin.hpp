// plexus/plugin.hpp: header-only C++17 helpers for writing a plexus plugin.
// They sit on top of plexus/plugin.h (the ABI, the only contract) and add
// nothing to it: a plugin using them still links nothing from plexus.
//
//   sdk/error.hpp        sdk::Error, guard(): exceptions to statuses at the boundary
//   sdk/half_bits.hpp    float <-> float16/bfloat16 bits, host and device code
//   sdk/half.hpp         sdk::Half, sdk::BFloat16
//   sdk/dtype.hpp        visit_dtype(), dtype_of<T>(), convert<To>(), dtype sets
//   sdk/tensor_view.hpp  TensorView<T>: typed strided access to a plexus_tensor
//   sdk/layout.hpp       CollapsedDims, collapse_dims(): strided layouts as few dims
//   sdk/elementwise.hpp  for_each_row(), for_each(), elementwise() over strided views
//   sdk/args.hpp         Args: a kernel call's arguments by position, checked
//   sdk/host.hpp         the host table as throwing C++ calls, log(), option()
//   sdk/kernel.hpp       register_kernel<&fn>(): C++ functions as kernels
//   sdk/backend.hpp      Backend<Impl>: a device type as a C++ class
//   sdk/host_memory.hpp  HostMemoryBackend<Impl>: a Backend whose memory is host memory
//   sdk/entry.hpp        PLEXUS_SDK_PLUGIN(init, shutdown), init_backend<Impl>()
//
// The vendor guide (sdk/VENDOR_GUIDE.md) and the toydev template (sdk/template)
// show them in use.
#pragma once

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "plexus/plugin.hpp needs C++17 or later; C plugins use plexus/plugin.h alone"
#endif

#include "plexus/plugin.h"
#include "plexus/sdk/args.hpp"
#include "plexus/sdk/backend.hpp"
#include "plexus/sdk/cat.hpp"
#include "plexus/sdk/dtype.hpp"
#include "plexus/sdk/elementwise.hpp"
#include "plexus/sdk/entry.hpp"
#include "plexus/sdk/error.hpp"
#include "plexus/sdk/half.hpp"
#include "plexus/sdk/half_bits.hpp"
#include "plexus/sdk/host.hpp"
#include "plexus/sdk/host_memory.hpp"
#include "plexus/sdk/kernel.hpp"
#include "plexus/sdk/layout.hpp"
#include "plexus/sdk/pool.hpp"
#include "plexus/sdk/tensor_view.hpp"
