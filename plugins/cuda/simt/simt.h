// The SIMT emulation: CUDA kernels compiled as host C++ and run on the CPU,
// so the kernel sources of the cuda and hip plugins are executed and checked
// on machines without a GPU. gpu.h includes this under PLEXUS_GPU_SIMT.
//
// Model: a launch's blocks run in parallel on a pool of OS threads; within a
// block, every GPU thread is a fiber (Boost.Context) with a small reused
// stack, switched only at barriers and warp operations. A barrier or warp
// operation that not every live thread of the block (warp) reaches is a
// launch failure, reported by the next synchronizing call, never a hang.
//
// Not emulated: partial warp masks (a *_sync mask must name every live lane),
// independent thread scheduling inside a warp between warp operations, and
// `extern __shared__` (use PLEXUS_DYNAMIC_SHARED from gpu.h).
#pragma once

#include "atomics.h"
#include "device_math.h"
#include "language.h"
#include "launch.h"
#include "runtime.h"
#include "warp.h"
