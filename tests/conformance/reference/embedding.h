// Reference definition of embedding (PyTorch's forward semantics).
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// for an index outside [0, num_embeddings).
Tensor embedding(const Tensor& weight, const Tensor& indices);


// embedding_backward: the gradient [num, dim] of embedding's weight given
// grad (indices.shape + [dim]): row r adds the gradient rows of the positions
// whose index is r, none for padding_idx (-1: none; -2.. wrap), each row
// divided by its count with scale_grad_by_freq. `scale` gets sum |terms|.
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num,
                          int64_t padding_idx, bool scale_grad_by_freq,
                          std::vector<double>* scale = nullptr);

// index_select: the slices of self along dim at index's values, in order
// (a 0-d self takes one index, 0). Throws std::out_of_range for a bad index.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);

}  // namespace plexus::ref
