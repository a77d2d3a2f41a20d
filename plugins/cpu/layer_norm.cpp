// layer_norm over the trailing normalized dims: rows in parallel, each row's
// mean and (biased) variance summed in lanes and blocks. layer_norm_backward:
// the input's gradient, one pass per row over the same statistics.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "rows.h"

namespace plexus::cpu {
namespace {

// The sum of f(x[i]) over n values: lanes within blocks, the blocks' sums
// added in double.
template <typename C, typename F>
double row_sum(const C* x, int64_t n, F f) {
  constexpr int L = kLanes<C>;
  constexpr int64_t kBlock = 4096;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    int64_t e = std::min(n, b + kBlock);
    C acc[L] = {};
    int64_t i = b;
    for (; i + L <= e; i += L)
      for (int l = 0; l < L; ++l) acc[l] += f(x[i + l]);
    for (; i < e; ++i) acc[0] += f(x[i]);
    for (int w = L / 2; w > 0; w /= 2)
      for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
    total += acc[0];
  }
  return total;
}

// Copies the trailing k dims of t from `p` (an element of t) into buf, or
// buf into them (Out).
template <bool Out, typename T, typename C>
void copy_trailing(const plexus_tensor& t, int32_t k, T* p, C* buf) {
  std::array<const int64_t*, 1> strides{t.strides + t.ndim - k};
  sdk::for_each_row<1>(
      k, t.sizes + t.ndim - k, strides,
      [&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& step) {
        if constexpr (Out)
          scatter(buf, n, p + off[0], step[0]);
        else
          gather(p + off[0], n, step[0], buf);
        buf += n;
      });
}

// weight or bias as n values of C: `fill` when None.
template <typename T, typename C>
std::vector<C> affine(const plexus_tensor* t, int64_t n, C fill) {
  std::vector<C> v(static_cast<size_t>(n), fill);
  if (t) copy_trailing<false>(*t, t->ndim, sdk::TensorView<const T>(*t).data(), v.data());
  return v;
}

template <typename T>
void layer_norm(const plexus_tensor& input, int32_t k, const plexus_tensor* weight,
                const plexus_tensor* bias, double eps, const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> in(input);
  sdk::TensorView<T> o(out);
  RowIndex rows;
  int64_t n = 1;
  for (int32_t d = 0; d < input.ndim; ++d) {
    if (d < input.ndim - k)
      rows.push(input.sizes[d], input.strides[d], out.strides[d]);
    else
      n *= input.sizes[d];
  }
  if (rows.count == 0 || n == 0) return;
  std::vector<C> w = affine<T>(weight, n, C(1)), b = affine<T>(bias, n, C(0));
  bool dense_in = std::is_same_v<T, C> && trailing_dense(input, k);
  bool dense_out = std::is_same_v<T, C> && trailing_dense(out, k);
  std::vector<C> scratch(static_cast<size_t>(parts_for(rows.count) * n * 2));
  parallel_parts(rows.count, n * 4, [&](int64_t part, int64_t lo, int64_t hi) {
    C* xbuf = scratch.data() + part * n * 2;
    C* ybuf = xbuf + n;
    for (int64_t r = lo; r < hi; ++r) {
      int64_t io, oo;
      rows.offsets(r, io, oo);
      const C* x = xbuf;
      C* y = ybuf;
      if constexpr (std::is_same_v<T, C>) {
        if (dense_in) x = in.data() + io;
        if (dense_out) y = o.data() + oo;
      }
      if (x == xbuf) copy_trailing<false>(input, k, in.data() + io, xbuf);
      C mean = static_cast<C>(row_sum(x, n, [](C v) { return v; }) / static_cast<double>(n));
      double var = row_sum(x, n, [mean](C v) { return (v - mean) * (v - mean); }) /
                   static_cast<double>(n);  // biased
      C rstd = static_cast<C>(1.0 / std::sqrt(var + eps));
      for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - mean) * rstd * w[j] + b[j];
      if (y == ybuf) copy_trailing<true>(out, k, o.data() + oo, ybuf);
    }
  });
}

// layer_norm.out(input, normalized_shape, weight, bias, eps, out)
void layer_norm_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& input = a.tensor(0);
  int32_t k = static_cast<int32_t>(a.int_list(1).size());
  const plexus_tensor* weight = a.optional_tensor(2);
  const plexus_tensor* bias = a.optional_tensor(3);
  double eps = a.floating(4);
  const plexus_tensor& out = a.tensor(5);
  check_dims(input, call.op);
  if (k > input.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "normalized_shape has {} dims for an input of {}", k,
              input.ndim);
  sdk::visit_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<sdk::compute_type_t<T>>)
      layer_norm<T>(input, k, weight, bias, eps, out);
    else
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} is not floating", sdk::dtype_name(input.dtype));
  });
}

// out = rstd (gw - mean(gw) - xhat mean(gw xhat)) per row, gw = g * w,
// xhat = (x - mean) rstd, with the forward's mean and rstd.
template <typename T>
void layer_norm_backward(const plexus_tensor& grad, const plexus_tensor& input, int32_t k,
                         const plexus_tensor* weight, double eps, const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> gv(grad), in(input);
  sdk::TensorView<T> o(out);
  RowIndex rows, out_rows;  // (input, grad) and (out, out) offsets of each row
  int64_t n = 1;
  for (int32_t d = 0; d < input.ndim; ++d) {
    if (d < input.ndim - k) {
      rows.push(input.sizes[d], input.strides[d], grad.strides[d]);
      out_rows.push(input.sizes[d], out.strides[d], out.strides[d]);
    } else {
      n *= input.sizes[d];
    }
  }
  if (rows.count == 0 || n == 0) return;
  std::vector<C> w = affine<T>(weight, n, C(1));
  std::vector<C> scratch(static_cast<size_t>(parts_for(rows.count) * n * 3));
  parallel_parts(rows.count, n * 8, [&](int64_t part, int64_t lo, int64_t hi) {
    C* x = scratch.data() + part * n * 3;
    C* g = x + n;
    C* y = g + n;
    for (int64_t r = lo; r < hi; ++r) {
      int64_t io, go, oo, unused;
      rows.offsets(r, io, go);
      out_rows.offsets(r, oo, unused);
      copy_trailing<false>(input, k, in.data() + io, x);
      copy_trailing<false>(grad, k, gv.data() + go, g);
      C mean = static_cast<C>(row_sum(x, n, [](C v) { return v; }) / static_cast<double>(n));
      double var = row_sum(x, n, [mean](C v) { return (v - mean) * (v - mean); }) /
                   static_cast<double>(n);
      C rstd = static_cast<C>(1.0 / std::sqrt(var + eps));
      double sum_gw = 0, sum_gw_xhat = 0;
      for (int64_t j = 0; j < n; ++j) {
        C gw = g[j] * w[j];
        sum_gw += gw;
        sum_gw_xhat += gw * (x[j] - mean) * rstd;
      }
      const C a = static_cast<C>(sum_gw / static_cast<double>(n));
      const C b = static_cast<C>(sum_gw_xhat / static_cast<double>(n));
      for (int64_t j = 0; j < n; ++j) {
        C xhat = (x[j] - mean) * rstd;
        y[j] = rstd * (g[j] * w[j] - a - xhat * b);
      }
      copy_trailing<true>(out, k, o.data() + oo, y);
    }
  });
}

// layer_norm_backward.out(grad_output, input, normalized_shape, weight, eps, out)
void layer_norm_backward_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& grad = a.tensor(0);
  const plexus_tensor& input = a.tensor(1);
  int32_t k = static_cast<int32_t>(a.int_list(2).size());
  const plexus_tensor* weight = a.optional_tensor(3);
  double eps = a.floating(4);
  const plexus_tensor& out = a.tensor(5);
  check_dims(input, call.op);
  if (k > input.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "normalized_shape has {} dims for an input of {}", k,
              input.ndim);
  visit<sdk::kFloatingDTypes>(input.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    layer_norm_backward<T>(grad, input, k, weight, eps, out);
  });
}

}  // namespace

void register_layer_norm(CpuBackend& b) {
  b.register_kernel<&layer_norm_out>("layer_norm.out", sdk::kFloatingDTypes);
  b.register_kernel<&layer_norm_backward_out>("layer_norm_backward.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
