// layer_norm for the floating dtypes (float16 and bfloat16 compute in
// float): one block per row (the trailing normalized dims).
#include <algorithm>
#include <cmath>
#include <string>

#include "block_reduce.h"
#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "rows.h"

namespace plexus::gpu {
namespace {

// A weight or bias over the normalized dims; data null: absent.
struct Affine {
  const void* data;
  int64_t strides[kMaxDims];
};

// Elements a thread keeps in registers when its block's row fits: such rows
// are read from memory once, not three times.
constexpr int kCached = 8;

// y = (x - mean) * rstd * w + b in C with the biased variance, two passes
// for accuracy.
template <typename T>
__global__ void layer_norm_kernel(Rows r, Affine w, Affine b, double eps) {
  using C = compute_t<T>;
  __shared__ C shared[2];
  const T *wt = static_cast<const T*>(w.data), *bt = static_cast<const T*>(b.data);
  const bool cached = r.n <= int64_t(blockDim.x) * kCached;
  for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
    const T* x =
        static_cast<const T*>(r.in) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_in);
    T* y = static_cast<T*>(r.out) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_out);
    auto at = [&](int64_t i) { return C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]); };
    C v[kCached];
    C s = C(0);
    if (cached) {
      for (int k = 0; k < kCached; ++k) {
        int64_t i = threadIdx.x + int64_t(k) * blockDim.x;
        v[k] = i < r.n ? at(i) : C(0);
        s += v[k];
      }
    } else {
      for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x) s += at(i);
    }
    s = block_reduce(s, Add{});
    if (threadIdx.x == 0) shared[0] = s / C(r.n);
    __syncthreads();
    C mean = shared[0], var = C(0);
    for_row_elements(cached, v, r.n, at, [&](int64_t, C xi) { var += (xi - mean) * (xi - mean); });
    var = block_reduce(var, Add{});
    if (threadIdx.x == 0) shared[1] = C(1.0 / sqrt(double(var) / double(r.n) + eps));
    __syncthreads();
    C rstd = shared[1];
    auto store = [&](int64_t i, C xi) {
      C t = (xi - mean) * rstd;
      if (wt) t *= C(wt[offset_in(i, r.inner_ndim, r.inner_sizes, w.strides)]);
      if (bt) t += C(bt[offset_in(i, r.inner_ndim, r.inner_sizes, b.strides)]);
      y[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_out)] = T(t);
    };
    for_row_elements(cached, v, r.n, at, store);
    __syncthreads();
  }
}

Affine affine_of(const plexus_tensor* t) {
  Affine a{};
  if (!t) return a;
  if (t->ndim > kMaxDims)  // never truncated: the kernel would read past the strides given
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "layer_norm.out: weight or bias of " +
                                            std::to_string(t->ndim) + " dims, at most " +
                                            std::to_string(kMaxDims) + " supported");
  a.data = static_cast<const char*>(t->storage) + t->offset * dtype_size(t->dtype);
  for (int32_t d = 0; d < t->ndim; ++d) a.strides[d] = t->strides[d];
  return a;
}

// layer_norm.out(input, normalized_shape, weight, bias, eps, out)
void layer_norm_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &input = a.tensor(0), &out = a.tensor(5);
  int32_t k = int32_t(a.int_list(1).size());
  const plexus_tensor *weight = a.optional_tensor(2), *bias = a.optional_tensor(3);
  for (const plexus_tensor* t : {weight, bias})
    if (t && (t->ndim != k || t->dtype != input.dtype))
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
                "layer_norm.out: weight and bias must have normalized_shape's " +
                    std::to_string(k) + " dims and input's dtype");
  Rows r = rows_of(call, input, out, input.ndim - k, k);
  if (r.rows == 0 || r.n == 0) return;
  unsigned blocks = unsigned(std::min<int64_t>(r.rows, 65535));
  visit_float(input.dtype, [&](auto tag) {
    auto* kernel = &layer_norm_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks, row_threads(r.n), 0, stream_of(call), r, affine_of(weight),
                  affine_of(bias), a.floating(4));
  });
  check_launch(call, "layer_norm_kernel");
}

}  // namespace

void register_layer_norm(GpuBackend& b) {
  b.register_kernel<&layer_norm_out>("layer_norm.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
