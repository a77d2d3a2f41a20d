// Strided tensors in kernels: N operands over one shape (the output's; the
// host has broadcast inputs with stride 0), passed to kernels by value, and
// map_kernel, the grid-stride elementwise loop every elementwise family uses.
#pragma once

#include <cstdint>
#include <string>

#include "device.h"
#include "errors.h"
#include "gpu.h"
#include "plexus/plugin.hpp"
#include "stream.h"

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
  if (l.ndim == 1) {  // dense or merged operands: no division
    for (int k = 0; k < N; ++k) off[k] = i * l.strides[k][0];
    return;
  }
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

// The layout of tensors (all of tensors[0]'s sizes), with size-1 dims dropped
// and neighbouring dims merged where every operand allows (dense tensors
// become one dim); throws for more than kMaxDims dims.
template <int N>
Layout<N> make_layout(const plexus_kernel_call& call, const plexus_tensor* const (&tensors)[N]) {
  Layout<N> l{};
  const plexus_tensor& out = *tensors[0];
  if (out.ndim > kMaxDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + " on " +
                                            device_name(call.device_index) + ": " +
                                            std::to_string(out.ndim) + " dims, at most " +
                                            std::to_string(kMaxDims) + " supported");
  l.numel = 1;
  for (int d = 0; d < out.ndim; ++d) {
    l.numel *= out.sizes[d];
    if (out.sizes[d] == 1) continue;  // size-1 dims move nothing
    // Merge dim d into the previous one when every operand steps over both as one.
    bool merge = l.ndim > 0;
    for (int k = 0; merge && k < N; ++k)
      merge = tensors[k]->strides[d] * out.sizes[d] == l.strides[k][l.ndim - 1];
    if (merge) {
      l.sizes[l.ndim - 1] *= out.sizes[d];
      for (int k = 0; k < N; ++k) l.strides[k][l.ndim - 1] = tensors[k]->strides[d];
      continue;
    }
    l.sizes[l.ndim] = out.sizes[d];
    for (int k = 0; k < N; ++k) l.strides[k][l.ndim] = tensors[k]->strides[d];
    ++l.ndim;
  }
  if (l.ndim == 0) {  // a scalar or all size-1 dims: one element
    l.ndim = 1;
    l.sizes[0] = 1;
  }
  for (int k = 0; k < N; ++k)
    l.data[k] = static_cast<char*>(tensors[k]->storage) +
                tensors[k]->offset * dtype_size(tensors[k]->dtype);
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
