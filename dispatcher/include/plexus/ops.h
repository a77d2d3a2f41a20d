// The C++ API for applications: every catalog op as a function. Functional
// forms return a new tensor; name_ forms write self; name_out forms write out.
// Scalar overloads pass the number as a wrapped scalar (PyTorch's rules).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plexus/factories.h"
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

// Operators for applications.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a);

}  // namespace plexus
