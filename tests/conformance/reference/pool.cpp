#include "reference/pool.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace plexus::ref {

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
  int64_t flat = 0;
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow, ++flat) {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
          const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
            const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
            if (w < 0 || w >= W) continue;
            double x = self.at((nc * H + h) * W + w);
            if (std::isnan(x) || x > m) m = x;
            if (std::isnan(m)) break;
          }
          if (std::isnan(m)) break;
        }
        out.set_float(flat, m);
      }
  return out;
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& self, const Pool2dParams& p,
                           std::vector<double>* scale) {
  if (self.dim() != 4 || grad.dim() != 4)
    throw std::invalid_argument("max_pool2d_backward: 4-D tensors expected");
  const int64_t N = self.sizes[0], C = self.sizes[1], H = self.sizes[2], W = self.sizes[3];
  const int64_t OH = grad.sizes[2], OW = grad.sizes[3];
  std::vector<long double> acc(static_cast<size_t>(self.numel()), 0.0L);
  std::vector<double> mag(acc.size(), 0.0);
  int64_t flat = 0;
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow, ++flat) {
        int64_t best = -1;
        double m = 0;
        for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
          const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
            const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
            if (w < 0 || w >= W) continue;
            const int64_t at = (nc * H + h) * W + w;
            double x = self.at(at);
            if (best < 0 || (!std::isnan(m) && (std::isnan(x) || x > m))) {
              best = at;
              m = x;
            }
          }
        }
        if (best < 0) continue;
        acc[static_cast<size_t>(best)] += grad.at(flat);
        mag[static_cast<size_t>(best)] += std::fabs(grad.at(flat));
      }
  Tensor out(self.dtype, self.sizes);
  for (int64_t i = 0; i < out.numel(); ++i) out.set_float(i, static_cast<double>(acc[static_cast<size_t>(i)]));
  if (scale) *scale = std::move(mag);
  return out;
}

}  // namespace plexus::ref
