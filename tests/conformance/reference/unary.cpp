#include "reference/unary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace plexus::ref {

namespace {

using LD = long double;

// A floating function of one argument, evaluated in long double.
Tensor map_ld(const Tensor& self, LD (*f)(LD)) {
  return map1(self, [f](double x) { return static_cast<double>(f(static_cast<LD>(x))); });
}

// The range of an integral dtype.
int64_t int_min(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8:
      return 0;
    case DType::I8:
      return std::numeric_limits<int8_t>::min();
    case DType::I16:
      return std::numeric_limits<int16_t>::min();
    case DType::I32:
      return std::numeric_limits<int32_t>::min();
    default:
      return std::numeric_limits<int64_t>::min();
  }
}
int64_t int_max(DType t) {
  switch (t) {
    case DType::Bool:
      return 1;
    case DType::U8:
      return std::numeric_limits<uint8_t>::max();
    case DType::I8:
      return std::numeric_limits<int8_t>::max();
    case DType::I16:
      return std::numeric_limits<int16_t>::max();
    case DType::I32:
      return std::numeric_limits<int32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

}  // namespace

Tensor neg(const Tensor& self) {
  return map1(
      self, [](double x) { return -x; }, [](int64_t x) { return wrapping_sub(0, x); });
}

Tensor abs(const Tensor& self) {
  return map1(
      self, [](double x) { return std::fabs(x); },
      [](int64_t x) { return x < 0 ? wrapping_sub(0, x) : x; });
}

Tensor exp(const Tensor& self) {
  return map_ld(self, [](LD x) { return std::exp(x); });
}
Tensor log(const Tensor& self) {
  return map_ld(self, [](LD x) { return std::log(x); });
}
// In double, not long double: IEEE 754 sqrt is correctly rounded, and a
// second rounding from long double could move a float64 result by an ulp.
Tensor sqrt(const Tensor& self) {
  return map1(self, [](double x) { return std::sqrt(x); });
}
Tensor rsqrt(const Tensor& self) {
  return map_ld(self, [](LD x) { return 1 / std::sqrt(x); });
}
Tensor sin(const Tensor& self) {
  return map_ld(self, [](LD x) { return std::sin(x); });
}
Tensor cos(const Tensor& self) {
  return map_ld(self, [](LD x) { return std::cos(x); });
}
Tensor tanh(const Tensor& self) {
  return map_ld(self, [](LD x) { return std::tanh(x); });
}
Tensor sigmoid(const Tensor& self) {
  return map_ld(self, [](LD x) { return 1 / (1 + std::exp(-x)); });
}
Tensor silu(const Tensor& self) {
  return map_ld(self, [](LD x) { return x / (1 + std::exp(-x)); });
}

Tensor relu(const Tensor& self) {
  return map1(
      self, [](double x) { return std::isnan(x) || x > 0 ? x : 0.0; },
      [](int64_t x) { return x > 0 ? x : 0; });
}

Tensor gelu(const Tensor& self, bool tanh_approximation) {
  // 1 + erf(z) = erfc(-z) and 1 + tanh(u) = 2 / (1 + exp(-2u)): the same
  // values without the cancellation of the sums for negative x.
  if (tanh_approximation)
    return map_ld(self, [](LD x) {
      const LD beta = std::sqrt(2 / std::numbers::pi_v<LD>);
      LD u = beta * (x + LD{0.044715} * x * x * x);
      return LD{0.5} * x * (2 / (1 + std::exp(-2 * u)));
    });
  return map_ld(self, [](LD x) { return LD{0.5} * x * std::erfc(-x / std::numbers::sqrt2_v<LD>); });
}

Tensor clamp(const Tensor& self, std::optional<double> min, std::optional<double> max) {
  DType t = self.dtype;
  if (min) min = round_to(t, *min);
  if (max) max = round_to(t, *max);
  return map1(self, [min, max](double x) {
    if (std::isnan(x) || (min && std::isnan(*min)) || (max && std::isnan(*max)))
      return std::numeric_limits<double>::quiet_NaN();
    if (min) x = std::fmax(x, *min);
    if (max) x = std::fmin(x, *max);
    return x;
  });
}

Tensor clamp_int(const Tensor& self, std::optional<int64_t> min, std::optional<int64_t> max) {
  int64_t lo = int_min(self.dtype), hi = int_max(self.dtype);
  if (min) min = std::clamp(*min, lo, hi);
  if (max) max = std::clamp(*max, lo, hi);
  return map1(self, {}, [min, max](int64_t x) {
    if (min) x = std::max(x, *min);
    if (max) x = std::min(x, *max);
    return x;
  });
}

Tensor copy(DType dtype, const Sizes& sizes, const Tensor& src) {
  Tensor expanded(src.dtype, sizes);
  for_each_index(sizes, [&](const Sizes& idx, int64_t flat) {
    int64_t from = broadcast_index(src.sizes, sizes, idx);
    if (src.integral())
      expanded.set_int(flat, src.at_int(from));
    else
      expanded.set_float(flat, src.at(from));
  });
  return convert(expanded, dtype);
}

Tensor fill(DType dtype, const Sizes& sizes, const Tensor& value) {
  return copy(dtype, sizes, value);
}

}  // namespace plexus::ref
