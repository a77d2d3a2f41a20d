// Reference definitions of the elementwise ops: unary, binary, pointwise,
// comparisons. Inputs broadcast; the result has the first input's dtype
// unless said otherwise. Floating math in double, integers wrap in int64.
#pragma once

#include "reference/tensor.h"

namespace plexus::ref {

// self + alpha * other (bool: logical or, alpha must be true/1)
Tensor add(const Tensor& self, const Tensor& other, double alpha);
// self - alpha * other
Tensor sub(const Tensor& self, const Tensor& other, double alpha);

}  // namespace plexus::ref
