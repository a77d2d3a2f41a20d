// Memory overlap between tensors, for checking in-place and out= writes.
#pragma once

#include "plexus/tensor.h"

namespace plexus {

enum class Overlap : uint8_t { None, Full, Partial };

// Full: a and b are the same view of the same storage. Partial: their byte
// ranges intersect otherwise (conservative for interleaved strided views).
Overlap overlap(const Tensor& a, const Tensor& b);
// True when two elements of t share memory (a stride-0 dim of size > 1, or
// strides that make rows collide).
bool has_internal_overlap(const Tensor& t);
// The same for a layout given as sizes and strides (in elements).
bool has_internal_overlap(IntArrayRef sizes, IntArrayRef strides);

}  // namespace plexus
