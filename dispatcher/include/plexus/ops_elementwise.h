// C++ API: elementwise ops (arithmetic, math functions, comparisons, pointwise).
// Every op broadcasts its tensors and promotes their dtypes as PyTorch does; a
// C++ number passed for a tensor counts as a Python scalar in promotion.
#pragma once

#include <optional>
#include <string>

#include "plexus/tensor.h"

namespace plexus {

// Arithmetic: self + alpha * other, and so on.
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1);
const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha = 1);
// self - alpha * other; not defined for bool.
Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor sub(const Tensor& self, Scalar other, Scalar alpha = 1);
const Tensor& sub_out(const Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha = 1);
// self * other.
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, Scalar other);
const Tensor& mul_out(const Tensor& out, const Tensor& self, const Tensor& other);
// self / other: true division (integers give float32) without rounding_mode;
// "trunc" or "floor" round the quotient and keep the promoted dtype.
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string> rounding_mode = std::nullopt);
Tensor div(const Tensor& self, Scalar other,
           std::optional<std::string> rounding_mode = std::nullopt);
const Tensor& div_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      std::optional<std::string> rounding_mode = std::nullopt);
// self raised to exponent, elementwise.
Tensor pow(const Tensor& self, const Tensor& exponent);
Tensor pow(const Tensor& self, Scalar exponent);
const Tensor& pow_out(const Tensor& out, const Tensor& self, const Tensor& exponent);
const Tensor& pow_out(const Tensor& out, const Tensor& self, Scalar exponent);
// The larger / smaller of each pair of elements; NaN wins.
Tensor maximum(const Tensor& self, const Tensor& other);
const Tensor& maximum_out(const Tensor& out, const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);
const Tensor& minimum_out(const Tensor& out, const Tensor& self, const Tensor& other);

// Math functions of one tensor. exp..silu and gelu compute integers as float32;
// name_ writes the result into self.
Tensor neg(const Tensor& self);  // not defined for bool
const Tensor& neg_out(const Tensor& out, const Tensor& self);
const Tensor& neg_(const Tensor& self);
Tensor abs(const Tensor& self);
const Tensor& abs_out(const Tensor& out, const Tensor& self);
const Tensor& abs_(const Tensor& self);
Tensor exp(const Tensor& self);
const Tensor& exp_out(const Tensor& out, const Tensor& self);
const Tensor& exp_(const Tensor& self);
Tensor log(const Tensor& self);
const Tensor& log_out(const Tensor& out, const Tensor& self);
const Tensor& log_(const Tensor& self);
Tensor sqrt(const Tensor& self);
const Tensor& sqrt_out(const Tensor& out, const Tensor& self);
const Tensor& sqrt_(const Tensor& self);
Tensor rsqrt(const Tensor& self);  // 1 / sqrt(self)
const Tensor& rsqrt_out(const Tensor& out, const Tensor& self);
const Tensor& rsqrt_(const Tensor& self);
Tensor sin(const Tensor& self);
const Tensor& sin_out(const Tensor& out, const Tensor& self);
const Tensor& sin_(const Tensor& self);
Tensor cos(const Tensor& self);
const Tensor& cos_out(const Tensor& out, const Tensor& self);
const Tensor& cos_(const Tensor& self);
Tensor tanh(const Tensor& self);
const Tensor& tanh_out(const Tensor& out, const Tensor& self);
const Tensor& tanh_(const Tensor& self);
Tensor sigmoid(const Tensor& self);  // 1 / (1 + exp(-self))
const Tensor& sigmoid_out(const Tensor& out, const Tensor& self);
const Tensor& sigmoid_(const Tensor& self);
Tensor relu(const Tensor& self);  // max(self, 0), in self's dtype
const Tensor& relu_out(const Tensor& out, const Tensor& self);
const Tensor& relu_(const Tensor& self);
Tensor silu(const Tensor& self);  // self * sigmoid(self)
const Tensor& silu_out(const Tensor& out, const Tensor& self);
const Tensor& silu_(const Tensor& self);
// approximate: "none" (exact, with erf) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
const Tensor& gelu_out(const Tensor& out, const Tensor& self,
                       const std::string& approximate = "none");
const Tensor& gelu_(const Tensor& self, const std::string& approximate = "none");
// Limits self to [min, max]; at least one bound is needed. Float bounds on an
// integer tensor give a float result.
Tensor clamp(const Tensor& self, std::optional<Scalar> min,
             std::optional<Scalar> max = std::nullopt);
const Tensor& clamp_out(const Tensor& out, const Tensor& self, std::optional<Scalar> min,
                        std::optional<Scalar> max = std::nullopt);
const Tensor& clamp_(const Tensor& self, std::optional<Scalar> min,
                     std::optional<Scalar> max = std::nullopt);

// Comparisons: bool tensors; both sides compare in their promoted dtype.
Tensor eq(const Tensor& self, const Tensor& other);
Tensor eq(const Tensor& self, Scalar other);
const Tensor& eq_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& eq_out(const Tensor& out, const Tensor& self, Scalar other);
Tensor ne(const Tensor& self, const Tensor& other);
Tensor ne(const Tensor& self, Scalar other);
const Tensor& ne_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& ne_out(const Tensor& out, const Tensor& self, Scalar other);
Tensor lt(const Tensor& self, const Tensor& other);
Tensor lt(const Tensor& self, Scalar other);
const Tensor& lt_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& lt_out(const Tensor& out, const Tensor& self, Scalar other);
Tensor le(const Tensor& self, const Tensor& other);
Tensor le(const Tensor& self, Scalar other);
const Tensor& le_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& le_out(const Tensor& out, const Tensor& self, Scalar other);
Tensor gt(const Tensor& self, const Tensor& other);
Tensor gt(const Tensor& self, Scalar other);
const Tensor& gt_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& gt_out(const Tensor& out, const Tensor& self, Scalar other);
Tensor ge(const Tensor& self, const Tensor& other);
Tensor ge(const Tensor& self, Scalar other);
const Tensor& ge_out(const Tensor& out, const Tensor& self, const Tensor& other);
const Tensor& ge_out(const Tensor& out, const Tensor& self, Scalar other);
// self where condition (a bool tensor) holds, other elsewhere.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, Scalar self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, Scalar other);
Tensor where(const Tensor& condition, Scalar self, Scalar other);
const Tensor& where_out(const Tensor& out, const Tensor& condition, const Tensor& self,
                        const Tensor& other);

// Pointwise ops of three operands.
// self + weight * (end - self); floating, end of self's dtype.
Tensor lerp(const Tensor& self, const Tensor& end, Scalar weight);
const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end, Scalar weight);
// self + value * tensor1 * tensor2.
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
const Tensor& addcmul_out(const Tensor& out, const Tensor& self, const Tensor& tensor1,
                          const Tensor& tensor2, Scalar value = 1);
// self + value * tensor1 / tensor2 (true division; not for two integer tensors).
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
const Tensor& addcdiv_out(const Tensor& out, const Tensor& self, const Tensor& tensor1,
                          const Tensor& tensor2, Scalar value = 1);

// Copies src (broadcast to self's shape, any dtype, any device) into self.
const Tensor& copy_(const Tensor& self, const Tensor& src);
// Sets every element of self to value.
const Tensor& fill_(const Tensor& self, Scalar value);

}  // namespace plexus
