// Strided tensors in kernels: N operands over one shape (the output's; the
// host has broadcast inputs with stride 0), passed to kernels by value, and
// map_kernel, the grid-stride elementwise loop every elementwise family uses.
#pragma once

#include <cstdint>
#include <string>

#include "context.h"
#include "gpu.h"
#include "plexus/plugin.hpp"

namespace plexus::gpu {

constexpr int kMaxDims = 8;
constexpr unsigned kBlockThreads = 256;
constexpr int64_t kMaxBlocks = 1024;  // grid-stride loops cover the rest

template <int N>
struct Layout {
  int64_t numel;
  int32_t ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];  // in elements
  void* data[N];                 // element [0, ..., 0] of each operand
};

// Element offsets of linear index i (row-major over sizes) in each operand.
template <int N>
__device__ __forceinline__ void offsets_of(const Layout<N>& l, int64_t i, int64_t* off) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = l.ndim - 1; d >= 0; --d) {
    int64_t c = i % l.sizes[d];
    i /= l.sizes[d];
    for (int k = 0; k < N; ++k) off[k] += c * l.strides[k][d];
  }
}

inline int64_t dtype_size(plexus_dtype d) {
  static const int64_t sizes[PLEXUS_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[d];
}

// The layout of tensors (all of tensors[0]'s sizes); throws for more than kMaxDims dims.
template <int N>
Layout<N> make_layout(const plexus_kernel_call& call, const plexus_tensor* const (&tensors)[N]) {
  Layout<N> l{};
  const plexus_tensor& out = *tensors[0];
  if (out.ndim > kMaxDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + " on " +
                                            device_name(call.device_index) + ": " +
                                            std::to_string(out.ndim) + " dims, at most " +
                                            std::to_string(kMaxDims) + " supported");
  l.ndim = out.ndim;
  l.numel = 1;
  for (int d = 0; d < out.ndim; ++d) l.sizes[d] = out.sizes[d], l.numel *= out.sizes[d];
  for (int k = 0; k < N; ++k) {
    const plexus_tensor& t = *tensors[k];
    for (int d = 0; d < out.ndim; ++d) l.strides[k][d] = t.strides[d];
    l.data[k] = static_cast<char*>(t.storage) + t.offset * dtype_size(t.dtype);
  }
  return l;
}

inline unsigned blocks_for(int64_t n) {
  int64_t b = (n + kBlockThreads - 1) / kBlockThreads;
  return unsigned(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

// out[i] = f(in1[i], ...) for N - 1 inputs of type In and an output of type Out.
template <typename Out, typename In, int N, typename F>
__global__ void map_kernel(Layout<N> l, F f) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[N];
    offsets_of(l, i, off);
    Out* out = static_cast<Out*>(l.data[0]) + off[0];
    const In* a = static_cast<const In*>(l.data[1]) + off[1];
    if constexpr (N == 2) {
      *out = f(*a);
    } else if constexpr (N == 3) {
      *out = f(*a, static_cast<const In*>(l.data[2])[off[2]]);
    } else {
      *out = f(*a, static_cast<const In*>(l.data[2])[off[2]],
               static_cast<const In*>(l.data[3])[off[3]]);
    }
  }
}

// Launches map_kernel over out = tensors[0] and the inputs after it.
template <typename Out, typename In, int N, typename F>
void launch_map(const plexus_kernel_call& call, const plexus_tensor* const (&tensors)[N], F f) {
  Layout<N> l = make_layout(call, tensors);
  if (l.numel == 0) return;
  auto* map = &map_kernel<Out, In, N, F>;
  PLEXUS_LAUNCH(map, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l, f);
  check_launch(call, "map_kernel");
}

// The call's tensor argument i.
inline const plexus_tensor* tensor_arg(const plexus_kernel_call& call, int64_t i) {
  return &sdk::Args(call).tensor(i);
}

}  // namespace plexus::gpu
