// Reference definitions of the elementwise ops: unary, binary, pointwise,
// comparisons. Inputs broadcast; the result has the first input's dtype
// unless said otherwise. Floating math in double (long double where double
// would lose the answer), integers wrap in int64.
//
// "Compute dtype" below is the dtype a kernel does its arithmetic in:
// float32 for float16, bfloat16 and float32, float64 for float64. Where a
// definition rounds an intermediate to it, that is part of the op's
// definition in PyTorch (a quotient truncated after rounding, an exponent
// converted to the compute dtype), not an artefact of one implementation.
#pragma once

#include <string>

#include "plexus/scalar.h"
#include "reference/tensor.h"

namespace plexus::ref {

// float64 for float64, float32 for the other floating dtypes.
DType compute_dtype(DType t);

// A Scalar argument as a kernel computing in `t` sees it, as a 0-d tensor:
// rounded to a floating dtype, wrapped to an integral one, != 0 for bool.
Tensor scalar_tensor(DType t, const Scalar& s);

// self + alpha * other (bool: logical or, alpha must be true/1)
Tensor add(const Tensor& self, const Tensor& other, double alpha);
// self - alpha * other
Tensor sub(const Tensor& self, const Tensor& other, double alpha);

// self * other (bool: logical and; integers wrap)
Tensor mul(const Tensor& self, const Tensor& other);
// True division of floating tensors (x / 0 is +-inf, 0 / 0 NaN).
Tensor div(const Tensor& self, const Tensor& other);
// rounding_mode 'trunc': integers divide as C does (toward zero), floats
// truncate the quotient rounded to the compute dtype. 'floor': Python's //
// (the quotient rounded down; for floats x // y == (x - x % y) / y with the
// remainder taking y's sign, so 1 // 0.1 == 9, -3 // inf == -1, inf // 3 is
// NaN). Integer results wrap (INT_MIN // -1 == INT_MIN). Integer division by
// zero throws std::domain_error: callers give such cases expect_error.
Tensor div_trunc(const Tensor& self, const Tensor& other);
Tensor div_floor(const Tensor& self, const Tensor& other);
// self ** exponent. Floats: C's pow (pow(x, 0) == 1, pow(1, y) == 1, NaN for a
// negative base to a non-integer power). Integers: repeated multiplication,
// wrapping; a negative exponent gives 1 for base 1, +-1 for base -1, else 0.
Tensor pow(const Tensor& self, const Tensor& exponent);
// self ** exponent with a Scalar exponent, converted to the compute dtype first.
Tensor pow(const Tensor& self, const Scalar& exponent);
// Elementwise larger / smaller value; NaN if either is NaN (bool: or / and).
Tensor maximum(const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);

// self + weight * (end - self), taken as end - (end - self) * (1 - weight)
// when |weight| >= 0.5 (PyTorch's definition; it differs only for
// infinities). end - self is rounded to the compute dtype, so that it
// overflows where any kernel's does.
Tensor lerp(const Tensor& self, const Tensor& end, double weight);
// self + value * tensor1 * tensor2 (integers wrap; value integral for them).
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
// self + value * tensor1 / tensor2 (floating only).
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);

// The six comparisons; the result is bool. Both inputs must have one dtype
// (the compute dtype). NaN compares false, except for ne where it is true.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(Cmp op, const Tensor& self, const Tensor& other);
// condition ? self : other, broadcasting all three; self and other must have
// one dtype, which the result has. Values pass through unchanged.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);

}  // namespace plexus::ref
