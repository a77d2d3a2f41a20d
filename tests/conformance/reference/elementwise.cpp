#include "reference/elementwise.h"

#include <cmath>

namespace plexus::ref {

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

}  // namespace plexus::ref
