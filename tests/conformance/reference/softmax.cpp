#include "reference/softmax.h"

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

Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim, bool log,
                        std::vector<double>* scale) {
  Rows r = rows_around(y.sizes, wrap_dim(dim, y.dim()));
  Tensor out(y.dtype, y.sizes);
  if (scale) scale->assign(static_cast<size_t>(out.numel()), 0.0);
  for (int64_t o = 0; o < r.outer; ++o) {
    for (int64_t i = 0; i < r.inner; ++i) {
      auto at = [&](int64_t k) { return (o * r.len + k) * r.inner + i; };
      long double acc = 0, mag = 0;
      for (int64_t k = 0; k < r.len; ++k) {
        long double g = grad.at(at(k)), v = y.at(at(k));
        acc += log ? g : g * v;
        mag += std::fabs(log ? g : g * v);
      }
      for (int64_t k = 0; k < r.len; ++k) {
        long double g = grad.at(at(k)), v = y.at(at(k));
        long double res = log ? g - std::exp(v) * acc : v * (g - acc);
        out.set_float(at(k), static_cast<double>(res));
        if (!scale) continue;
        long double s = log ? std::fabs(g) + std::exp(v) * mag * (1 + std::fabs(v))
                            : std::fabs(v) * (std::fabs(g) + mag);
        (*scale)[static_cast<size_t>(at(k))] = static_cast<double>(s);
      }
    }
  }
  return out;
}

}  // namespace plexus::ref
