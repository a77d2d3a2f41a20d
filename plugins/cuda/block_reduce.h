// Reduction of one value per thread across a block: warp shuffles within each
// warp, then the warps' partials through shared memory. Every thread of the
// block must call it (it has barriers); the result is valid in thread 0.
// Add and Max are the combines the row kernels and max_pool2d use.
#pragma once

#include <type_traits>

#include "gpu.h"

namespace plexus::gpu {

constexpr int kMaxWarpsPerBlock = 32;  // 1024 threads of 32 lanes

// The larger of two values; a NaN wins.
struct Max {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return (b > a) || (b != b) ? b : a;
  }
};
struct Add {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return a + b;
  }
};

// Shuffles a float, an integer, or a value/index pair field by field (shuffles take
// built-in types only).
__device__ __forceinline__ float shuffle_down(float v, int delta) {
  return __shfl_down_sync(PLEXUS_FULL_MASK, v, unsigned(delta));
}
__device__ __forceinline__ double shuffle_down(double v, int delta) {
  return __shfl_down_sync(PLEXUS_FULL_MASK, v, unsigned(delta));
}

// Integers shuffle as int or long long (the narrow ones widened and back).
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
__device__ __forceinline__ T shuffle_down(T v, int delta) {
  using W = std::conditional_t<(sizeof(T) <= sizeof(int)), int, long long>;
  return T(__shfl_down_sync(PLEXUS_FULL_MASK, W(v), unsigned(delta)));
}

template <typename T, typename Combine>
__device__ T block_reduce(T v, Combine combine) {
  __shared__ T partial[kMaxWarpsPerBlock];
  int lane = int(threadIdx.x) % warpSize, warp = int(threadIdx.x) / warpSize;
  int warps = (int(blockDim.x) + warpSize - 1) / warpSize;
  for (int delta = warpSize / 2; delta > 0; delta /= 2) {
    T other = shuffle_down(v, delta);
    if (lane + delta < warpSize && int(threadIdx.x) + delta < int(blockDim.x))
      v = combine(v, other);
  }
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < warps; ++w) v = combine(v, partial[w]);
  __syncthreads();  // partial is reused by the next call
  return v;
}

}  // namespace plexus::gpu
