#include "reference/pool.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace plexus::ref {

namespace {

// Calls tap(window, at) for each tap inside the input of each window of a
// max_pool2d with output [.., OH, OW], windows numbered row-major over
// (plane, oh, ow) and `at` the tap's flat index in self, in row-major order
// within the window; tap returns false to stop that window.
template <typename F>
void each_window_tap(const Sizes& self, int64_t OH, int64_t OW, const Pool2dParams& p, F tap) {
  const int64_t planes = self[0] * self[1], H = self[2], W = self[3];
  int64_t window = 0;
  for (int64_t nc = 0; nc < planes; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow, ++window) {
        bool go = true;
        for (int64_t kh = 0; go && kh < p.kernel[0]; ++kh) {
          const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = 0; go && kw < p.kernel[1]; ++kw) {
            const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
            if (w < 0 || w >= W) continue;
            go = tap(window, (nc * H + h) * W + w);
          }
        }
      }
}

}  // namespace

int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t q = num >= 0 ? num / s : -((-num + s - 1) / s);  // floor division
  int64_t out = q + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

Tensor max_pool2d(const Tensor& self, const Pool2dParams& p) {
  if (self.dim() != 4) throw std::invalid_argument("max_pool2d: 4-D self expected");
  const int64_t N = self.sizes[0], C = self.sizes[1], H = self.sizes[2], W = self.sizes[3];
  const int64_t OH =
      pool_output_size(H, p.kernel[0], p.stride[0], p.padding[0], p.dilation[0], p.ceil_mode);
  const int64_t OW =
      pool_output_size(W, p.kernel[1], p.stride[1], p.padding[1], p.dilation[1], p.ceil_mode);
  if (OH < 1 || OW < 1) throw std::invalid_argument("max_pool2d: no output");
  Tensor out(self.dtype, {N, C, OH, OW});
  std::vector<double> m(static_cast<size_t>(out.numel()), -std::numeric_limits<double>::infinity());
  each_window_tap(self.sizes, OH, OW, p, [&](int64_t window, int64_t at) {
    double& best = m[static_cast<size_t>(window)];
    double x = self.at(at);
    if (std::isnan(x) || x > best) best = x;
    return !std::isnan(best);  // a NaN wins: the window is done
  });
  for (int64_t i = 0; i < out.numel(); ++i) out.set_float(i, m[static_cast<size_t>(i)]);
  return out;
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& self, const Pool2dParams& p,
                           std::vector<double>* scale) {
  if (self.dim() != 4 || grad.dim() != 4)
    throw std::invalid_argument("max_pool2d_backward: 4-D tensors expected");
  const int64_t OH = grad.sizes[2], OW = grad.sizes[3];
  std::vector<long double> acc(static_cast<size_t>(self.numel()), 0.0L);
  std::vector<double> mag(acc.size(), 0.0);
  const int64_t windows = grad.numel();
  std::vector<int64_t> best(static_cast<size_t>(windows), -1);
  std::vector<double> m(best.size(), 0.0);
  each_window_tap(self.sizes, OH, OW, p, [&](int64_t window, int64_t at) {
    size_t u = static_cast<size_t>(window);
    double x = self.at(at);
    if (best[u] < 0 || (!std::isnan(m[u]) && (std::isnan(x) || x > m[u]))) {
      best[u] = at;
      m[u] = x;
    }
    return true;
  });
  for (int64_t window = 0; window < windows; ++window) {
    int64_t at = best[static_cast<size_t>(window)];
    if (at < 0) continue;
    acc[static_cast<size_t>(at)] += grad.at(window);
    mag[static_cast<size_t>(at)] += std::fabs(grad.at(window));
  }
  Tensor out(self.dtype, self.sizes);
  for (int64_t i = 0; i < out.numel(); ++i) out.set_float(i, static_cast<double>(acc[static_cast<size_t>(i)]));
  if (scale) *scale = std::move(mag);
  return out;
}

}  // namespace plexus::ref
