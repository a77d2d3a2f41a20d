// C++ API: elementwise ops (arithmetic, math functions, comparisons, pointwise).
#pragma once

#include <optional>
#include <string>

#include "plexus/tensor.h"

namespace plexus {

// Arithmetic: self + alpha * other, and so on.
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1);
const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha = 1);

// Copies src (broadcast to self's shape, any dtype, any device) into self.
const Tensor& copy_(const Tensor& self, const Tensor& src);
// Sets every element of self to value.
const Tensor& fill_(const Tensor& self, Scalar value);

}  // namespace plexus
