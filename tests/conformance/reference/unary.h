// Reference definitions of the unary ops (neg ... clamp) and of the copy ops
// (copy_, fill_). The result has the input's dtype (copy_ and fill_: self's).
// Floating math in long double, so that even float64 results are the exact
// value rounded once; integers wrap in int64.
#pragma once

#include <optional>

#include "reference/tensor.h"

namespace plexus::ref {

// -x; integers wrap (neg of the minimum is the minimum; uint8 gives 256 - x).
Tensor neg(const Tensor& self);
// |x|; integers wrap (abs of the minimum is the minimum); abs(-0) = +0.
Tensor abs(const Tensor& self);
Tensor exp(const Tensor& self);
Tensor log(const Tensor& self);
Tensor sqrt(const Tensor& self);
// 1 / sqrt(x)
Tensor rsqrt(const Tensor& self);
Tensor sin(const Tensor& self);
Tensor cos(const Tensor& self);
Tensor tanh(const Tensor& self);
// 1 / (1 + exp(-x))
Tensor sigmoid(const Tensor& self);
// x * sigmoid(x); as a product, silu(-inf) = -inf * 0 = NaN.
Tensor silu(const Tensor& self);
// max(x, 0); NaN stays NaN.
Tensor relu(const Tensor& self);
// approximate 'none': x/2 * (1 + erf(x / sqrt(2)));
// 'tanh': x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). Both are NaN at
// -inf (-inf * 0), as the products they are defined by.
Tensor gelu(const Tensor& self, bool tanh_approximation);
// min(max(x, min), max): max wins when min > max. Floating: the bounds are
// rounded to the dtype first; NaN in x or in a bound gives NaN.
Tensor clamp(const Tensor& self, std::optional<double> min, std::optional<double> max);
// Integral: a bound outside the dtype's range saturates to it.
Tensor clamp_int(const Tensor& self, std::optional<int64_t> min, std::optional<int64_t> max);

// copy_(self, src): src broadcast to `sizes` and converted to `dtype` (ref::convert).
Tensor copy(DType dtype, const Sizes& sizes, const Tensor& src);
// fill_(self, value): `value` (a 0-d tensor: bool, int64 or float64 as the
// Scalar's kind) cast to `dtype` in every element.
Tensor fill(DType dtype, const Sizes& sizes, const Tensor& value);

}  // namespace plexus::ref
