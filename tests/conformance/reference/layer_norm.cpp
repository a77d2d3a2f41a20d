#include "reference/layer_norm.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace plexus::ref {

namespace {
// The number of elements in one normalized row: the product of the last
// normalized_dims sizes.
int64_t normalized_len(const Tensor& input, int64_t normalized_dims) {
  int64_t len = 1;
  for (int64_t d = input.dim() - normalized_dims; d < input.dim(); ++d)
    len *= input.sizes[static_cast<size_t>(d)];
  return len;
}
}  // namespace

Tensor layer_norm(const Tensor& input, int64_t normalized_dims, const Tensor* weight,
                  const Tensor* bias, double eps, std::vector<double>* scale) {
  if (input.integral())
    throw std::invalid_argument("layer_norm: the reference needs a floating input");
  if (normalized_dims < 1 || normalized_dims > input.dim())
    throw std::invalid_argument("layer_norm: bad number of normalized dims");
  const int64_t len = normalized_len(input, normalized_dims);
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

Tensor layer_norm_backward(const Tensor& grad, const Tensor& input, int64_t normalized_dims,
                           const Tensor* weight, double eps, std::vector<double>* scale) {
  const int64_t len = normalized_len(input, normalized_dims);
  Tensor out(input.dtype, input.sizes);
  if (scale) scale->assign(static_cast<size_t>(out.numel()), 0.0);
  if (len == 0) return out;
  const int64_t rows = input.numel() / len;
  std::vector<long double> xhat(static_cast<size_t>(len)), gw(xhat.size());
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t base = row * len;
    long double sum = 0;
    for (int64_t k = 0; k < len; ++k) sum += input.at(base + k);
    const long double mean = sum / len;
    long double var = 0;
    for (int64_t k = 0; k < len; ++k) {
      long double c = input.at(base + k) - mean;
      var += c * c;
    }
    const long double rstd = 1 / std::sqrt(var / len + eps);
    long double a = 0, b = 0, abs_a = 0, abs_b = 0;
    for (int64_t k = 0; k < len; ++k) {
      size_t u = static_cast<size_t>(k);
      xhat[u] = (input.at(base + k) - mean) * rstd;
      gw[u] = static_cast<long double>(grad.at(base + k)) * (weight ? weight->at(k) : 1.0);
      a += gw[u];
      b += gw[u] * xhat[u];
      abs_a += std::fabs(gw[u]);
      abs_b += std::fabs(gw[u] * xhat[u]);
    }
    a /= len;
    b /= len;
    abs_a /= len;
    abs_b /= len;
    for (int64_t k = 0; k < len; ++k) {
      size_t u = static_cast<size_t>(k);
      out.set_float(base + k, static_cast<double>(rstd * (gw[u] - a - xhat[u] * b)));
      if (scale)
        (*scale)[static_cast<size_t>(base + k)] = static_cast<double>(
            rstd * (std::fabs(gw[u]) + abs_a + (std::fabs(xhat[u]) + 1) * (abs_b + abs_a)));
    }
  }
  return out;
}

}  // namespace plexus::ref
