// Reference definition of softmax and log_softmax (PyTorch's forward semantics).
//
// `scale`, where given, gets a per-element error bound: the rounding a kernel
// working in a dtype with machine epsilon eps may honestly commit, in units of
// eps, whatever order it adds in. Accumulations run in long double.
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// softmax(self, dim) = exp(x_i) / sum_j exp(x_j) along dim, computed as
// exp(x_i - max) / sum_j exp(x_j - max) (log: (x_i - max) - log(sum)); a row
// holding NaN, +inf, or only -inf gives NaN throughout. A 0-d self is one row
// of one element.
Tensor softmax(const Tensor& self, int64_t dim, bool log, std::vector<double>* scale = nullptr);

// The gradient of softmax (log false) or log_softmax with respect to its
// input, given grad and the forward's result y along dim: y (g - sum(g y)),
// or g - exp(y) sum(g). `scale` gets the size of the terms: |y| (|g| +
// sum |g y|), or |g| + exp(y) sum |g| (with exp's rounding of y).
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim, bool log,
                        std::vector<double>* scale = nullptr);

}  // namespace plexus::ref
