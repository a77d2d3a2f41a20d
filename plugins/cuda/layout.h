// Strided tensors in kernels: N operands over one shape (the output's; the
// host has broadcast inputs with stride 0), passed to kernels by value, and
// map_kernel, the grid-stride elementwise loop every elementwise family uses.
#pragma once

#include <array>
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

// The dims of N operands (plexus/sdk/layout.hpp; strides in elements) and where
// each operand's element [0, ..., 0] is.
template <int N>
struct Layout : sdk::CollapsedDims<N, kMaxDims> {
  void* data[N];
};

// Element offsets of linear index i (row-major over the dims) in each operand.
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

// Element offset of row-major index i over nd dims of sizes and strides.
// i must be below the product of the sizes; one dim (a dense row, a merged
// reduction) then needs no division, which costs tens of instructions per
// element in 64 bits.
__device__ __forceinline__ int64_t offset_in(int64_t i, int32_t nd, const int64_t* sizes,
                                             const int64_t* strides) {
  if (nd == 1) return i * strides[0];
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

inline int64_t dtype_size(plexus_dtype d) {
  static const int64_t sizes[PLEXUS_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[d];
}

// The layout of tensors (all of tensors[0]'s sizes), collapsed
// (plexus/sdk/layout.hpp; dense tensors become one dim); throws when more than
// kMaxDims dims remain.
template <int N>
Layout<N> make_layout(const plexus_kernel_call& call, const plexus_tensor* const (&tensors)[N]) {
  Layout<N> l{};
  const plexus_tensor& out = *tensors[0];
  std::array<const int64_t*, N> strides;
  for (int k = 0; k < N; ++k) strides[k] = tensors[k]->strides;
  if (!sdk::collapse_dims(out.ndim, out.sizes, strides, l))
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + " on " +
                                            device_name(call.device_index) + ": " +
                                            std::to_string(out.ndim) + " dims, at most " +
                                            std::to_string(kMaxDims) + " supported");
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

// K consecutive elements loaded or stored as one access (16 bytes for float).
template <typename T, int K>
struct alignas(sizeof(T) * K) Pack {
  T v[K];
};
constexpr int kPack = 4;

// map_kernel for operands that are all dense over one dim and aligned to a
// Pack: one vector load per input and one store per kPack elements, and no
// index arithmetic. The last numel % kPack elements are done one by one.
template <typename Out, typename In, int N, typename F>
__global__ void map_dense_kernel(Layout<N> l, F f) {
  const int64_t packs = l.numel / kPack;
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* out = static_cast<Pack<Out, kPack>*>(l.data[0]);
  const auto* a = static_cast<const Pack<In, kPack>*>(l.data[1]);
  for (int64_t p = first; p < packs; p += step) {
    Pack<Out, kPack> o;
    Pack<In, kPack> x = a[p];
    if constexpr (N == 2) {
      for (int k = 0; k < kPack; ++k) o.v[k] = f(x.v[k]);
    } else if constexpr (N == 3) {
      Pack<In, kPack> y = static_cast<const Pack<In, kPack>*>(l.data[2])[p];
      for (int k = 0; k < kPack; ++k) o.v[k] = f(x.v[k], y.v[k]);
    } else {
      Pack<In, kPack> y = static_cast<const Pack<In, kPack>*>(l.data[2])[p];
      Pack<In, kPack> z = static_cast<const Pack<In, kPack>*>(l.data[3])[p];
      for (int k = 0; k < kPack; ++k) o.v[k] = f(x.v[k], y.v[k], z.v[k]);
    }
    out[p] = o;
  }
  const int64_t i = packs * kPack + first;
  if (i < l.numel) {
    Out* o = static_cast<Out*>(l.data[0]) + i;
    const In* x = static_cast<const In*>(l.data[1]) + i;
    if constexpr (N == 2)
      *o = f(*x);
    else if constexpr (N == 3)
      *o = f(*x, static_cast<const In*>(l.data[2])[i]);
    else
      *o = f(*x, static_cast<const In*>(l.data[2])[i], static_cast<const In*>(l.data[3])[i]);
  }
}

// Every operand dense over one dim, its start aligned to a Pack of its type.
template <typename Out, typename In, int N>
bool dense_and_aligned(const Layout<N>& l) {
  if (l.ndim != 1) return false;
  for (int k = 0; k < N; ++k) {
    size_t align = k == 0 ? sizeof(Pack<Out, kPack>) : sizeof(Pack<In, kPack>);
    if (l.strides[k][0] != 1 || reinterpret_cast<uintptr_t>(l.data[k]) % align != 0) return false;
  }
  return true;
}

// Launches map_kernel over out = tensors[0] and the inputs after it; dense,
// aligned operands take map_dense_kernel (a GPU's elementwise bandwidth
// needs vector accesses: plugins/cuda/README.md has the figures).
template <typename Out, typename In, int N, typename F>
void launch_map(const plexus_kernel_call& call, const plexus_tensor* const (&tensors)[N], F f) {
  Layout<N> l = make_layout(call, tensors);
  if (l.numel == 0) return;
  if (dense_and_aligned<Out, In, N>(l)) {
    auto* dense = &map_dense_kernel<Out, In, N, F>;
    PLEXUS_LAUNCH(dense, blocks_for((l.numel + kPack - 1) / kPack), kBlockThreads, 0,
                  stream_of(call), l, f);
    check_launch(call, "map_dense_kernel");
    return;
  }
  auto* map = &map_kernel<Out, In, N, F>;
  PLEXUS_LAUNCH(map, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l, f);
  check_launch(call, "map_kernel");
}

// The call's tensor argument i.
inline const plexus_tensor* tensor_arg(const plexus_kernel_call& call, int64_t i) {
  return &sdk::Args(call).tensor(i);
}

}  // namespace plexus::gpu
