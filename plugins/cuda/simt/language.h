// The CUDA kernel language on the host: qualifiers, dim3, the built-in
// indices and barriers. Each GPU thread of a block runs as a fiber on one OS
// thread (see block.cpp), so per-block state lives in thread_local storage
// that the block scheduler sets before resuming each fiber.
#pragma once

#include <cstddef>
#include <cstdint>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
// Static shared memory: one instance per OS thread, and every fiber of a block
// runs on the same OS thread, one block at a time.
#define __shared__ static thread_local

struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// The built-in variables of the running GPU thread (read-only to kernels).
inline thread_local uint3 threadIdx{};
inline thread_local uint3 blockIdx{};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};
inline thread_local int warpSize = 32;

// Waits until every thread of the block has reached it. Reports a launch
// failure when some threads of the block exited instead (a divergent barrier).
void __syncthreads();
// Waits for the lanes of this warp in mask (all live lanes must be named).
void __syncwarp(unsigned long long mask = ~0ull);
// Memory fences; fibers of a block share one OS thread, blocks run in parallel.
void __threadfence();
inline void __threadfence_block() {}

namespace simt {
namespace detail {
inline thread_local unsigned char* t_dynamic_shared = nullptr;
}  // namespace detail

// The block's dynamic shared memory (the launch's shared-memory bytes).
template <typename T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(detail::t_dynamic_shared);
}
}  // namespace simt
