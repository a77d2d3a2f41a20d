#include "reference/conv.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace plexus::ref {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor* bias, const Conv2dParams& p,
              std::vector<double>* scale) {
  if (input.dim() != 4 || weight.dim() != 4)
    throw std::invalid_argument("conv2d: 4-D tensors expected");
  const int64_t N = input.sizes[0], C = input.sizes[1], H = input.sizes[2], W = input.sizes[3];
  const int64_t CO = weight.sizes[0], CG = weight.sizes[1], KH = weight.sizes[2],
                KW = weight.sizes[3];
  const int64_t G = p.groups;
  if (CG * G != C || CO % G != 0) throw std::invalid_argument("conv2d: channels do not fit groups");
  auto out_len = [](int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d) {
    return (in + 2 * pad - d * (k - 1) - 1) / s + 1;
  };
  const int64_t OH = out_len(H, KH, p.stride[0], p.padding[0], p.dilation[0]);
  const int64_t OW = out_len(W, KW, p.stride[1], p.padding[1], p.dilation[1]);
  if (OH < 1 || OW < 1) throw std::invalid_argument("conv2d: kernel larger than padded input");
  Tensor out(input.dtype, {N, CO, OH, OW});
  if (scale) scale->assign(static_cast<size_t>(out.numel()), 0.0);
  const int64_t per_group = CO / G;
  int64_t flat = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t co = 0; co < CO; ++co)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow, ++flat) {
          long double acc = bias ? bias->at(co) : 0.0L;
          long double mag = std::fabs(acc);
          const int64_t g = co / per_group;
          for (int64_t cg = 0; cg < CG; ++cg) {
            const int64_t c = g * CG + cg;
            for (int64_t kh = 0; kh < KH; ++kh) {
              const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
              if (h < 0 || h >= H) continue;  // zero padding
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
                if (w < 0 || w >= W) continue;
                long double term =
                    static_cast<long double>(input.at(((n * C + c) * H + h) * W + w)) *
                    weight.at(((co * CG + cg) * KH + kh) * KW + kw);
                acc += term;
                mag += std::fabs(term);
              }
            }
          }
          out.set_float(flat, static_cast<double>(acc));
          if (scale) (*scale)[static_cast<size_t>(flat)] = static_cast<double>(mag);
        }
  return out;
}

}  // namespace plexus::ref
