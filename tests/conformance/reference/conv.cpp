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

namespace {

// Calls tap(n, co, oh, ow, c, cg, kh, kw, h, w) for every term conv2d adds:
// output (n, co, oh, ow) reads input (n, c, h, w) with weight (co, cg, kh, kw).
template <typename F>
void each_tap(const Sizes& in, const Sizes& wt, const Sizes& out, const Conv2dParams& p, F tap) {
  const int64_t N = in[0], H = in[2], W = in[3];
  const int64_t CO = wt[0], CG = wt[1], KH = wt[2], KW = wt[3];
  const int64_t OH = out[2], OW = out[3], per_group = CO / p.groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t co = 0; co < CO; ++co)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow)
          for (int64_t cg = 0; cg < CG; ++cg)
            for (int64_t kh = 0; kh < KH; ++kh) {
              const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
              if (h < 0 || h >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
                if (w < 0 || w >= W) continue;
                tap(n, co, oh, ow, co / per_group * CG + cg, cg, kh, kw, h, w);
              }
            }
}

// Terms accumulated per element in long double, with their magnitudes.
Tensor finish(DType dt, const Sizes& sizes, const std::vector<long double>& acc,
              std::vector<double>& mag, std::vector<double>* scale) {
  Tensor out(dt, sizes);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.set_float(i, static_cast<double>(acc[static_cast<size_t>(i)]));
  if (scale) *scale = std::move(mag);
  return out;
}

}  // namespace

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight, const Sizes& input_sizes,
                             const Conv2dParams& p, std::vector<double>* scale) {
  const Sizes& in = input_sizes;
  const Sizes& wt = weight.sizes;
  const int64_t C = in[1], H = in[2], W = in[3];
  const int64_t CO = wt[0], CG = wt[1], KH = wt[2], KW = wt[3];
  const int64_t OH = grad.sizes[2], OW = grad.sizes[3];
  std::vector<long double> acc(static_cast<size_t>(numel_of(in)), 0.0L);
  std::vector<double> mag(acc.size(), 0.0);
  each_tap(in, wt, grad.sizes, p,
           [&](int64_t n, int64_t co, int64_t oh, int64_t ow, int64_t c, int64_t cg, int64_t kh,
               int64_t kw, int64_t h, int64_t w) {
             long double term = static_cast<long double>(grad.at(((n * CO + co) * OH + oh) * OW + ow)) *
                                weight.at(((co * CG + cg) * KH + kh) * KW + kw);
             size_t at = static_cast<size_t>(((n * C + c) * H + h) * W + w);
             acc[at] += term;
             mag[at] += static_cast<double>(std::fabs(term));
           });
  return finish(grad.dtype, in, acc, mag, scale);
}

Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& input, const Sizes& weight_sizes,
                              const Conv2dParams& p, std::vector<double>* scale) {
  const Sizes& in = input.sizes;
  const Sizes& wt = weight_sizes;
  const int64_t C = in[1], H = in[2], W = in[3];
  const int64_t CO = wt[0], CG = wt[1], KH = wt[2], KW = wt[3];
  const int64_t OH = grad.sizes[2], OW = grad.sizes[3];
  std::vector<long double> acc(static_cast<size_t>(numel_of(wt)), 0.0L);
  std::vector<double> mag(acc.size(), 0.0);
  each_tap(in, wt, grad.sizes, p,
           [&](int64_t n, int64_t co, int64_t oh, int64_t ow, int64_t c, int64_t cg, int64_t kh,
               int64_t kw, int64_t h, int64_t w) {
             long double term = static_cast<long double>(grad.at(((n * CO + co) * OH + oh) * OW + ow)) *
                                input.at(((n * C + c) * H + h) * W + w);
             size_t at = static_cast<size_t>(((co * CG + cg) * KH + kh) * KW + kw);
             acc[at] += term;
             mag[at] += static_cast<double>(std::fabs(term));
           });
  return finish(grad.dtype, wt, acc, mag, scale);
}

}  // namespace plexus::ref
