#include "reference/elementwise.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace plexus::ref {

namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Integer division toward zero; the one overflowing quotient wraps.
int64_t int_trunc_div(int64_t a, int64_t b) {
  if (b == 0) throw std::domain_error("reference: integer division by zero");
  if (a == kInt64Min && b == -1) return kInt64Min;
  return a / b;
}

int64_t int_floor_div(int64_t a, int64_t b) {
  int64_t q = int_trunc_div(a, b);
  if (a == kInt64Min && b == -1) return q;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's float floor division: the quotient's floor, from the exact
// remainder fmod(a, b) (the quotient's own rounding could cross an integer).
double float_floor_div(double a, double b) {
  if (b == 0) return a / b;
  long double mod = std::fmod(static_cast<long double>(a), static_cast<long double>(b));
  long double q = (static_cast<long double>(a) - mod) / b;  // an integer, up to rounding
  if (mod != 0 && (b < 0) != (mod < 0)) q -= 1;
  if (q == 0) return std::copysign(0.0, a / b);
  return static_cast<double>(std::nearbyint(q));
}

// base ** e by repeated squaring, modulo 2^64 (so modulo any narrower width).
int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return e % 2 != 0 ? -1 : 1;
    return 0;
  }
  int64_t r = 1;
  while (e) {
    if (e & 1) r = wrapping_mul(r, base);
    base = wrapping_mul(base, base);
    e >>= 1;
  }
  return r;
}

double float_pow(double x, double y) {
  return static_cast<double>(std::pow(static_cast<long double>(x), static_cast<long double>(y)));
}

double float_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double float_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}

}  // namespace

DType compute_dtype(DType t) {
  return t == DType::F64 ? DType::F64 : DType::F32;
}

Tensor scalar_tensor(DType t, const Scalar& s) {
  Tensor out(t, {});
  if (t == DType::Bool)
    out.set_int(0, s.to_bool());
  else if (is_floating(t))
    out.set_float(0, round_to(t, s.to_double()));
  else
    out.set_int(0, s.to_int());
  return out;
}

Tensor add(const Tensor& self, const Tensor& other, double alpha) {
  if (self.dtype == DType::Bool)
    return map2(self, other, {}, [](int64_t a, int64_t b) { return int64_t{a || b}; });
  int64_t ia = static_cast<int64_t>(alpha);
  return map2(
      self, other, [alpha](double a, double b) { return a + alpha * b; },
      [ia](int64_t a, int64_t b) { return wrapping_add(a, wrapping_mul(ia, b)); });
}

Tensor sub(const Tensor& self, const Tensor& other, double alpha) {
  int64_t ia = static_cast<int64_t>(alpha);
  return map2(
      self, other, [alpha](double a, double b) { return a - alpha * b; },
      [ia](int64_t a, int64_t b) { return wrapping_sub(a, wrapping_mul(ia, b)); });
}

Tensor mul(const Tensor& self, const Tensor& other) {
  if (self.dtype == DType::Bool)
    return map2(self, other, {}, [](int64_t a, int64_t b) { return int64_t{a && b}; });
  return map2(
      self, other, [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b) { return wrapping_mul(a, b); });
}

Tensor div(const Tensor& self, const Tensor& other) {
  return map2(self, other, [](double a, double b) { return a / b; });
}

Tensor div_trunc(const Tensor& self, const Tensor& other) {
  DType c = compute_dtype(self.dtype);
  return map2(
      self, other, [c](double a, double b) { return std::trunc(round_to(c, a / b)); },
      int_trunc_div);
}

Tensor div_floor(const Tensor& self, const Tensor& other) {
  return map2(self, other, float_floor_div, int_floor_div);
}

Tensor pow(const Tensor& self, const Tensor& exponent) {
  return map2(self, exponent, float_pow, int_pow);
}

Tensor pow(const Tensor& self, const Scalar& exponent) {
  if (self.integral()) {
    int64_t e = exponent.to_int();
    return map1(self, {}, [e](int64_t x) { return int_pow(x, e); });
  }
  double e = round_to(compute_dtype(self.dtype), exponent.to_double());
  return map1(self, [e](double x) { return float_pow(x, e); });
}

Tensor maximum(const Tensor& self, const Tensor& other) {
  return map2(self, other, float_max, [](int64_t a, int64_t b) { return a > b ? a : b; });
}

Tensor minimum(const Tensor& self, const Tensor& other) {
  return map2(self, other, float_min, [](int64_t a, int64_t b) { return a < b ? a : b; });
}

Tensor lerp(const Tensor& self, const Tensor& end, double weight) {
  DType c = compute_dtype(self.dtype);
  return map2(self, end, [c, weight](double a, double b) {
    long double d = round_to(c, b - a);
    if (std::fabs(weight) < 0.5) return static_cast<double>(a + weight * d);
    return static_cast<double>(b - d * (1 - static_cast<long double>(weight)));
  });
}

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  long double v = value.to_double();
  int64_t iv = value.to_int();
  return map(
      {&self, &t1, &t2}, self.dtype,
      [v](const std::vector<double>& x) {
        return static_cast<double>(x[0] + v * x[1] * static_cast<long double>(x[2]));
      },
      [iv](const std::vector<int64_t>& x) {
        return wrapping_add(x[0], wrapping_mul(wrapping_mul(iv, x[1]), x[2]));
      });
}

Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  long double v = value.to_double();
  return map({&self, &t1, &t2}, self.dtype,
             [v](const std::vector<double>& x) {
               return static_cast<double>(x[0] + v * x[1] / static_cast<long double>(x[2]));
             },
             {});
}

Tensor compare(Cmp op, const Tensor& self, const Tensor& other) {
  if (self.dtype != other.dtype) throw std::invalid_argument("reference: compare of two dtypes");
  auto test = [op](auto a, auto b) -> bool {
    switch (op) {
      case Cmp::Eq:
        return a == b;
      case Cmp::Ne:
        return a != b;
      case Cmp::Lt:
        return a < b;
      case Cmp::Le:
        return a <= b;
      case Cmp::Gt:
        return a > b;
      case Cmp::Ge:
        return a >= b;
    }
    return false;
  };
  return map(
      {&self, &other}, DType::Bool,
      [&](const std::vector<double>& v) { return test(v[0], v[1]) ? 1.0 : 0.0; },
      [&](const std::vector<int64_t>& v) { return int64_t{test(v[0], v[1])}; });
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  if (self.dtype != other.dtype) throw std::invalid_argument("reference: where of two dtypes");
  Sizes shape = broadcast_shapes(broadcast_shapes(condition.sizes, self.sizes), other.sizes);
  Tensor out(self.dtype, shape);
  for_each_index(shape, [&](const Sizes& idx, int64_t flat) {
    bool c = condition.at_int(broadcast_index(condition.sizes, shape, idx)) != 0;
    const Tensor& from = c ? self : other;
    int64_t src = broadcast_index(from.sizes, shape, idx);
    if (out.integral())
      out.set_int(flat, from.at_int(src));
    else
      out.set_float(flat, from.at(src));
  });
  return out;
}

}  // namespace plexus::ref
