// Reference definition of the shape-building ops: cat (PyTorch's semantics).
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// The tensors joined along dim (negative: from the end), in the first one's
// dtype. 1-D tensors of size 0 are skipped whatever the others' shapes
// (PyTorch's legacy rule); when every tensor is one, the result is empty [0].
// Throws std::invalid_argument when the shapes do not fit.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace plexus::ref
