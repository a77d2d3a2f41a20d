// The C++ API for applications: every catalog op as a function. Functional
// forms return a new tensor; name_ forms write self; name_out forms write out.
// Scalar overloads pass the number as a wrapped scalar (PyTorch's rules).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plexus/factories.h"
#include "plexus/ops_elementwise.h"
#include "plexus/ops_nn.h"
#include "plexus/ops_optim.h"
#include "plexus/ops_random.h"
#include "plexus/tensor.h"

namespace plexus {

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
