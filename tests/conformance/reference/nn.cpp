#include "reference/nn.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace plexus::ref {

namespace {

// A tensor seen as [outer, len, inner] around one dim: element (o, k, i) is at
// flat index (o * len + k) * inner + i.
struct Rows {
  int64_t outer = 1, len = 1, inner = 1;
};
Rows rows_around(const Sizes& sizes, int64_t dim) {
  Rows r;
  if (sizes.empty()) return r;  // 0-d: one row of one element
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    int64_t s = sizes[static_cast<size_t>(d)];
    if (d < dim)
      r.outer *= s;
    else if (d == dim)
      r.len = s;
    else
      r.inner *= s;
  }
  return r;
}

}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, bool log, std::vector<double>* scale) {
  if (self.integral())
    throw std::invalid_argument("softmax: the reference needs a floating tensor");
  Rows r = rows_around(self.sizes, wrap_dim(dim, self.dim()));
  Tensor out(self.dtype, self.sizes);
  if (scale) scale->assign(static_cast<size_t>(out.numel()), 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<long double> t(static_cast<size_t>(r.len)), e(static_cast<size_t>(r.len));
  for (int64_t o = 0; o < r.outer; ++o) {
    for (int64_t i = 0; i < r.inner; ++i) {
      auto at = [&](int64_t k) { return (o * r.len + k) * r.inner + i; };
      // The row's maximum; NaN when the row holds one.
      long double m = -std::numeric_limits<long double>::infinity();
      for (int64_t k = 0; k < r.len; ++k) {
        long double x = self.at(at(k));
        if (std::isnan(x) || std::isnan(m))
          m = NAN;
        else if (x > m)
          m = x;
      }
      long double sum = 0;
      for (int64_t k = 0; k < r.len; ++k) {
        size_t u = static_cast<size_t>(k);
        t[u] = static_cast<long double>(self.at(at(k))) - m;  // NaN for -inf - -inf, inf - inf
        e[u] = std::exp(t[u]);
        sum += e[u];
      }
      long double log_sum = std::log(sum);
      // The weighted size of the exponents: how far rounding x - max moves the sum.
      long double spread = 0;
      for (int64_t k = 0; k < r.len; ++k) {
        size_t u = static_cast<size_t>(k);
        if (e[u] != 0) spread += e[u] / sum * std::fabs(t[u]);
      }
      for (int64_t k = 0; k < r.len; ++k) {
        size_t u = static_cast<size_t>(k);
        long double y = log ? t[u] - log_sum : e[u] / sum;
        out.set_float(at(k), std::isnan(sum) ? nan : static_cast<double>(y));
        // exp of -inf (softmax 0) and infinities must match exactly.
        if (!scale || !std::isfinite(y) || (!log && y == 0) || !std::isfinite(spread)) continue;
        // Rounding x - max (|t|), exp and the division (a few), the sum (len
        // terms) and the exponents it adds up (spread), relative to softmax's
        // result; absolute for log_softmax, which also adds log(sum) once.
        long double terms = std::fabs(t[u]) + spread + static_cast<long double>(r.len) + 2;
        long double s = log ? terms + std::fabs(log_sum) : std::fabs(y) * terms;
        (*scale)[static_cast<size_t>(at(k))] = static_cast<double>(s);
      }
    }
  }
  return out;
}

Tensor layer_norm(const Tensor& input, int64_t normalized_dims, const Tensor* weight,
                  const Tensor* bias, double eps, std::vector<double>* scale) {
  if (input.integral())
    throw std::invalid_argument("layer_norm: the reference needs a floating input");
  if (normalized_dims < 1 || normalized_dims > input.dim())
    throw std::invalid_argument("layer_norm: bad number of normalized dims");
  int64_t len = 1;
  for (int64_t d = input.dim() - normalized_dims; d < input.dim(); ++d)
    len *= input.sizes[static_cast<size_t>(d)];
  Tensor out(input.dtype, input.sizes);
  if (scale) scale->assign(static_cast<size_t>(out.numel()), 0.0);
  if (len == 0) return out;
  int64_t rows = input.numel() / len;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t base = row * len;
    long double sum = 0, abs_sum = 0;
    for (int64_t k = 0; k < len; ++k) {
      sum += input.at(base + k);
      abs_sum += std::fabs(static_cast<long double>(input.at(base + k)));
    }
    long double mean = sum / len;
    long double sq = 0, raw_sq = 0;
    for (int64_t k = 0; k < len; ++k) {
      long double dx = input.at(base + k) - mean;
      sq += dx * dx;
      raw_sq += static_cast<long double>(input.at(base + k)) * input.at(base + k);
    }
    long double var = sq / len;  // biased, as PyTorch's layer_norm
    long double denom = var + eps;
    long double sigma = std::sqrt(denom);
    for (int64_t k = 0; k < len; ++k) {
      long double xhat = (input.at(base + k) - mean) / sigma;
      long double w = weight ? weight->at(k) : 1.0L;
      long double b = bias ? bias->at(k) : 0.0L;
      long double y = xhat * w + b;
      out.set_float(base + k, static_cast<double>(y));
      if (!scale || !std::isfinite(y)) continue;
      // The mean's rounding (len terms of size mean|x|) shifts every element
      // by up to len * eps * mean|x| / sigma; the variance's (len terms, of
      // size mean(x^2) when a kernel uses E[x^2] - mean^2) scales xhat; the
      // product and the bias add their own rounding once.
      long double s = len * (abs_sum / len) / sigma;
      if (xhat != 0) s += len * std::fabs(xhat) * (raw_sq / len + eps) / denom;
      s = s * std::fabs(w) + std::fabs(xhat * w) + std::fabs(b);
      (*scale)[static_cast<size_t>(base + k)] = static_cast<double>(s);
    }
  }
  return out;
}

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

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  if (weight.dim() != 2) throw std::invalid_argument("embedding: 2-D weight expected");
  const int64_t num = weight.sizes[0], len = weight.sizes[1];
  Sizes sizes = indices.sizes;
  sizes.push_back(len);
  Tensor out(weight.dtype, sizes);
  for (int64_t k = 0; k < indices.numel(); ++k) {
    int64_t row = indices.at_int(k);
    if (row < 0 || row >= num)
      throw std::out_of_range("embedding: index " + std::to_string(row) + " out of range");
    for (int64_t j = 0; j < len; ++j) {
      if (out.integral())
        out.set_int(k * len + j, weight.at_int(row * len + j));
      else
        out.set_float(k * len + j, weight.at(row * len + j));
    }
  }
  return out;
}

}  // namespace plexus::ref
