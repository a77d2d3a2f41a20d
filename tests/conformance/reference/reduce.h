// Reference definitions of the reductions: sum, mean, amax, amin, argmax,
// argmin (PyTorch's semantics). `dims` names the reduced dims of self, any of
// them negative; empty means every dim (a 0-d self reduces its one element).
// Floating sums are taken in long double, integer sums wrap in int64.
#pragma once

#include <optional>
#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// Sum over dims, in `dtype` (self is converted to it first; integers wrap).
// A sum of no elements is 0.
Tensor sum(const Tensor& self, const Sizes& dims, bool keepdim, DType dtype);
// Sum over dims divided by the number of elements summed, in floating `dtype`
// (self converted to it first). A mean of no elements is NaN.
Tensor mean(const Tensor& self, const Sizes& dims, bool keepdim, DType dtype);
// Per element of sum's result: the sum of |x| over the elements it adds up.
std::vector<double> sum_abs(const Tensor& self, const Sizes& dims);
// How many elements of self each result element of a reduction over dims covers.
int64_t reduced_count(const Sizes& sizes, const Sizes& dims);

// The largest / smallest element over dims, in self's dtype; NaN wins over
// everything. Throws when a result element covers no elements.
Tensor amax(const Tensor& self, const Sizes& dims, bool keepdim);
Tensor amin(const Tensor& self, const Sizes& dims, bool keepdim);

// The index (int64) of the largest / smallest element along dim, or in the
// row-major flattening of self when dim is none; the first NaN wins, and among
// equal values the first. Throws when there is no element to pick.
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim);

}  // namespace plexus::ref
