// Reference definitions of the matrix products: mm, bmm, addmm (PyTorch's
// semantics). The result has the operands' dtype; floating products are summed
// in long double (every product of two float32 values is exact there),
// integer ones wrap in int64, which gives the dtype's wrapped result.
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// self [n, k] @ mat2 [k, p] -> [n, p]; an empty contraction (k = 0) gives zeros.
Tensor mm(const Tensor& self, const Tensor& mat2);
// self [b, n, k] @ mat2 [b, k, p] -> [b, n, p], one product per batch.
Tensor bmm(const Tensor& self, const Tensor& mat2);
// beta * self + alpha * (mat1 @ mat2), self broadcast to [n, p]. beta 0 ignores
// self entirely (its NaN and inf too), and alpha 0 the product. Integer dtypes take beta and alpha as
// integers.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, double beta, double alpha);

// Per element of mm(self, mat2) (or of bmm for 3-D operands): the sum over k
// of |self[.., i, k] * mat2[.., k, j]|, the size of the terms it adds up.
std::vector<double> product_abs(const Tensor& self, const Tensor& mat2);

}  // namespace plexus::ref
