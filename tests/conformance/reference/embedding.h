// Reference definition of embedding (PyTorch's forward semantics).
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// for an index outside [0, num_embeddings).
Tensor embedding(const Tensor& weight, const Tensor& indices);


}  // namespace plexus::ref
