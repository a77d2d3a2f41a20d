// Rows for the row kernels (softmax, layer_norm): a tensor's dims split into
// those that index rows and those of a row's elements; each row gets one
// block, reduced with block_reduce.
#pragma once

#include <cstdint>
#include <string>

#include "layout.h"

namespace plexus::gpu {

// Rows of a tensor: `outer` dims index rows, `inner` dims the row's elements.
struct Rows {
  int32_t outer_ndim, inner_ndim;
  int64_t outer_sizes[kMaxDims], outer_in[kMaxDims], outer_out[kMaxDims];
  int64_t inner_sizes[kMaxDims], inner_in[kMaxDims], inner_out[kMaxDims];
  int64_t rows, n;
  const void* in;  // elements of the op's dtype
  void* out;
};

// in/out's dims split: those in [first, first + count) are a row's, the rest index rows.
inline Rows rows_of(const plexus_kernel_call& call, const plexus_tensor& in,
                    const plexus_tensor& out, int32_t first, int32_t count) {
  if (in.ndim > kMaxDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + ": more than 8 dims");
  Rows r{};
  r.rows = r.n = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    bool inner = d >= first && d < first + count;
    int32_t& nd = inner ? r.inner_ndim : r.outer_ndim;
    (inner ? r.inner_sizes : r.outer_sizes)[nd] = in.sizes[d];
    (inner ? r.inner_in : r.outer_in)[nd] = in.strides[d];
    (inner ? r.inner_out : r.outer_out)[nd] = out.strides[d];
    ++nd;
    (inner ? r.n : r.rows) *= in.sizes[d];
  }
  r.in = static_cast<const char*>(in.storage) + in.offset * dtype_size(in.dtype);
  r.out = static_cast<char*>(out.storage) + out.offset * dtype_size(out.dtype);
  return r;
}

// A row kernel's thread keeps up to K of its row's elements in registers
// when the row has at most K x blockDim.x of them (`cached`): element i =
// threadIdx.x + k * blockDim.x is v[k]. for_row_elements calls f(i, x_i) for
// this thread's elements, from v when cached, else read through at(i).
template <int K, typename C, typename At, typename F>
__device__ __forceinline__ void for_row_elements(bool cached, const C (&v)[K], int64_t n, At at,
                                                 F f) {
  if (cached) {
    for (int k = 0; k < K; ++k) {
      int64_t i = threadIdx.x + int64_t(k) * blockDim.x;
      if (i < n) f(i, v[k]);
    }
  } else {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) f(i, at(i));
  }
}

// Threads per row block: a warp for short rows, more for long ones.
inline unsigned row_threads(int64_t n) {
  return n <= 32 ? 32 : (n <= 1024 ? 128 : 256);
}

}  // namespace plexus::gpu
