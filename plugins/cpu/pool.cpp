// max_pool2d: the max over each window, separable into a pass down the
// window's rows and one across its columns. max_pool2d_backward: each
// window's gradient added at its maximum, found again in self.
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "rows.h"

namespace plexus::cpu {
namespace {

using Pool = sdk::Pool2dWindow;  // kernel, stride, padding, dilation as (h, w)

// The window taps [lo, hi) of one output position that land inside [0, size).
inline void taps(int64_t start, int64_t k, int64_t d, int64_t size, int64_t& lo, int64_t& hi) {
  lo = start < 0 ? (-start + d - 1) / d : 0;
  hi = start + (k - 1) * d < size ? k : (size - start + d - 1) / d;
  hi = std::max(lo, hi);
}

// The larger of m and v; a NaN v wins (and then stays).
template <typename C>
inline C max_nan(C m, C v) {
  return (v > m) | (v != v) ? v : m;
}

// The output columns [lo, hi) whose windows lie inside [0, size): all taps valid.
inline void inner_outputs(int64_t k, int64_t s, int64_t p, int64_t d, int64_t size, int64_t n,
                          int64_t& lo, int64_t& hi) {
  lo = std::min(n, (p + s - 1) / s);
  int64_t last = size - 1 - (k - 1) * d + p;  // the largest valid window start, plus p
  hi = last < 0 ? lo : std::clamp(last / s + 1, lo, n);
}

// Max over windows is separable: per output row, the max down the window's
// rows for every input column, then across each window's columns; both
// passes run over dense buffers and vectorize. Padding never wins: only taps
// inside the input are read.
template <typename T>
void max_pool2d(const plexus_tensor& self, const Pool& p, const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  constexpr C kLowest = -std::numeric_limits<C>::infinity();
  sdk::TensorView<const T> in(self);
  sdk::TensorView<T> o(out);
  if (o.numel() == 0) return;
  const int64_t channels = self.sizes[1], H = self.sizes[2], W = self.sizes[3];
  const int64_t OH = out.sizes[2], OW = out.sizes[3];
  const int64_t* is = self.strides;
  const int64_t* os = out.strides;
  const int64_t planes = self.sizes[0] * channels;
  const int64_t kw = p.kernel[1], sw = p.stride[1], pw = p.padding[1], dw = p.dilation[1];
  int64_t ow_lo, ow_hi;
  inner_outputs(kw, sw, pw, dw, W, OW, ow_lo, ow_hi);
  std::vector<C> scratch(static_cast<size_t>(parts_for(planes) * (W + OW)));
  parallel_parts(planes, OH * OW * p.kernel[0] * kw, [&](int64_t part, int64_t b, int64_t e) {
    C* col = scratch.data() + part * (W + OW);  // max down the window rows, per input column
    C* row = col + W;                           // one output row
    for (int64_t nc = b; nc < e; ++nc) {
      const T* ip = in.data() + nc / channels * is[0] + nc % channels * is[1];
      T* op = o.data() + nc / channels * os[0] + nc % channels * os[1];
      for (int64_t oh = 0; oh < OH; ++oh) {
        int64_t h0 = oh * p.stride[0] - p.padding[0], ilo, ihi;
        taps(h0, p.kernel[0], p.dilation[0], H, ilo, ihi);
        std::fill(col, col + W, kLowest);
        for (int64_t i = ilo; i < ihi; ++i) {
          const T* x = ip + (h0 + i * p.dilation[0]) * is[2];
          if (is[3] == 1)
            for (int64_t w = 0; w < W; ++w) col[w] = max_nan(col[w], static_cast<C>(x[w]));
          else
            for (int64_t w = 0; w < W; ++w) col[w] = max_nan(col[w], static_cast<C>(x[w * is[3]]));
        }
        std::fill(row, row + OW, kLowest);
        for (int64_t j = 0; j < kw; ++j) {  // windows inside the row: every tap
          const C* c = col + j * dw - pw;
          for (int64_t ow = ow_lo; ow < ow_hi; ++ow) row[ow] = max_nan(row[ow], c[ow * sw]);
        }
        auto edge = [&](int64_t ow) {  // a window over an edge: the taps inside
          int64_t w0 = ow * sw - pw, jlo, jhi;
          taps(w0, kw, dw, W, jlo, jhi);
          for (int64_t j = jlo; j < jhi; ++j) row[ow] = max_nan(row[ow], col[w0 + j * dw]);
        };
        for (int64_t ow = 0; ow < ow_lo; ++ow) edge(ow);
        for (int64_t ow = ow_hi; ow < OW; ++ow) edge(ow);
        scatter(row, OW, op + oh * os[2], os[3]);
      }
    }
  });
}

// max_pool2d.out(self, kernel_size, stride, padding, dilation, ceil_mode, out)
void max_pool2d_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(6);
  const Pool p = sdk::read_max_pool2d_window(a);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<sdk::compute_type_t<T>>)
      max_pool2d<T>(self, p, out);
    else
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} is not floating", sdk::dtype_name(self.dtype));
  });
}

// One plane (n, c) of max_pool2d_backward: for each window, the first tap
// inside the input holding its maximum (a NaN before any number), which
// gets the window's gradient; taps shared by windows add up, in C.
template <typename T>
void max_pool2d_backward(const plexus_tensor& grad, const plexus_tensor& self, const Pool& p,
                         const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> gv(grad), in(self);
  sdk::TensorView<T> o(out);
  if (o.numel() == 0) return;
  const int64_t channels = self.sizes[1], H = self.sizes[2], W = self.sizes[3];
  const int64_t OH = grad.sizes[2], OW = grad.sizes[3];
  const int64_t *is = self.strides, *gs = grad.strides, *os = out.strides;
  const int64_t planes = self.sizes[0] * channels;
  std::vector<C> scratch(static_cast<size_t>(parts_for(planes) * H * W));
  parallel_parts(planes, (OH * OW * p.kernel[0] * p.kernel[1]) + H * W,
                 [&](int64_t part, int64_t b, int64_t e) {
    C* acc = scratch.data() + part * H * W;
    for (int64_t nc = b; nc < e; ++nc) {
      const int64_t n = nc / channels, c = nc % channels;
      const T* ip = in.data() + n * is[0] + c * is[1];
      const T* gp = gv.data() + n * gs[0] + c * gs[1];
      T* op = o.data() + n * os[0] + c * os[1];
      std::fill(acc, acc + H * W, C(0));
      for (int64_t oh = 0; oh < OH; ++oh) {
        int64_t h0 = oh * p.stride[0] - p.padding[0], ilo, ihi;
        taps(h0, p.kernel[0], p.dilation[0], H, ilo, ihi);
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t w0 = ow * p.stride[1] - p.padding[1], jlo, jhi;
          taps(w0, p.kernel[1], p.dilation[1], W, jlo, jhi);
          int64_t best = -1;
          C m = 0;
          for (int64_t i = ilo; i < ihi; ++i) {
            const int64_t h = h0 + i * p.dilation[0];
            for (int64_t j = jlo; j < jhi; ++j) {
              const int64_t w = w0 + j * p.dilation[1];
              C v = static_cast<C>(ip[h * is[2] + w * is[3]]);
              if (best < 0 || (m == m && (v > m || v != v))) {
                best = h * W + w;
                m = v;
              }
            }
          }
          if (best >= 0) acc[best] += static_cast<C>(gp[oh * gs[2] + ow * gs[3]]);
        }
      }
      for (int64_t h = 0; h < H; ++h) scatter(acc + h * W, W, op + h * os[2], os[3]);
    }
  });
}

// max_pool2d_backward.out(grad_output, self, kernel_size, stride, padding,
// dilation, ceil_mode, out)
void max_pool2d_backward_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& grad = a.tensor(0);
  const plexus_tensor& self = a.tensor(1);
  const plexus_tensor& out = a.tensor(7);
  const Pool p = sdk::read_max_pool2d_backward_window(a);
  visit<sdk::kFloatingDTypes>(self.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool2d_backward<T>(grad, self, p, out);
  });
}

}  // namespace

void register_pool(CpuBackend& b) {
  b.register_kernel<&max_pool2d_out>("max_pool2d.out", sdk::kFloatingDTypes);
  b.register_kernel<&max_pool2d_backward_out>("max_pool2d_backward.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
