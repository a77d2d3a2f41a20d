// softmax and log_softmax for the floating dtypes (float16 and bfloat16
// compute in float): one block per row (the elements along `dim`).
#include <algorithm>
#include <cmath>
#include <string>

#include "block_reduce.h"
#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "plexus/sdk/op_args.hpp"
#include "rows.h"

namespace plexus::gpu {
namespace {

// Elements a thread keeps in registers when its block's row fits: rows up to
// kCached x the block's threads are read from memory once, not three times.
constexpr int kCached = 8;

// Stable softmax of T rows computed in C: the row's max is subtracted before
// exponentiating.
template <typename T>
__global__ void softmax_kernel(Rows r, bool log) {
  using C = compute_t<T>;
  __shared__ C shared[2];
  const bool cached = r.n <= int64_t(blockDim.x) * kCached;
  for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
    const T* x =
        static_cast<const T*>(r.in) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_in);
    T* y = static_cast<T*>(r.out) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_out);
    auto at = [&](int64_t i) { return C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]); };
    C v[kCached];
    C m = C(-INFINITY);
    if (cached) {
      for (int k = 0; k < kCached; ++k) {
        int64_t i = threadIdx.x + int64_t(k) * blockDim.x;
        v[k] = i < r.n ? at(i) : C(-INFINITY);
        m = Max{}(m, v[k]);
      }
    } else {
      for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x) m = Max{}(m, at(i));
    }
    m = block_reduce(m, Max{});
    if (threadIdx.x == 0) shared[0] = m;
    __syncthreads();
    m = shared[0];
    C s = C(0);
    for_row_elements(cached, v, r.n, at, [&](int64_t, C xi) { s += exp(xi - m); });
    s = block_reduce(s, Add{});
    if (threadIdx.x == 0) shared[1] = log ? C(::log(s)) : C(1) / s;
    __syncthreads();
    C k1 = shared[1];
    auto store = [&](int64_t i, C xi) {
      C t = xi - m;
      y[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_out)] = T(log ? t - k1 : exp(t) * k1);
    };
    for_row_elements(cached, v, r.n, at, store);
    __syncthreads();  // shared is rewritten for the next row
  }
}

// softmax.int_out / log_softmax.int_out(self, dim, dtype, out)
template <bool Log>
void softmax_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  int64_t dim = a.integer(1);
  if (self.ndim == 0) dim = 0;
  sdk::check_same_dtype(self, out);
  Rows r = rows_of(call, self, out, int32_t(dim), self.ndim == 0 ? 0 : 1);
  if (r.rows == 0 || r.n == 0) return;
  unsigned blocks = unsigned(std::min<int64_t>(r.rows, 65535));
  visit_float(self.dtype, [&](auto tag) {
    auto* kernel = &softmax_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks, row_threads(r.n), 0, stream_of(call), r, Log);
  });
  check_launch(call, "softmax_kernel");
}

}  // namespace

void register_softmax(GpuBackend& b) {
  b.register_kernel<&softmax_out<false>>("softmax.int_out", sdk::kFloatingDTypes);
  b.register_kernel<&softmax_out<true>>("log_softmax.int_out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
