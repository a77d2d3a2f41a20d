// Random ops as catalog ops (dispatcher/src/catalog/random.cpp): each fills
// self in place from a counter-based stream named by (seed, offset). Element i
// of self, counted in row-major order, is a pure function of (seed, offset +
// i), so every device and every layout gives the same stream (Note [random
// streams] in plexus/sdk/philox.hpp). They keep no state: plexus::Generator
// (plexus/random.h) holds a seed and an offset and advances it.
#pragma once

#include <cstdint>

#include "plexus/tensor.h"

namespace plexus {

// Uniform in [from, to) (float16 and bfloat16 may round up to `to`); self floating.
const Tensor& uniform_(const Tensor& self, double from, double to, uint64_t seed, uint64_t offset);
// Normal with this mean and standard deviation (Box-Muller); self floating.
const Tensor& normal_(const Tensor& self, double mean, double std, uint64_t seed, uint64_t offset);
// 1 with probability p, else 0, in self's dtype (any dtype).
const Tensor& bernoulli_(const Tensor& self, double p, uint64_t seed, uint64_t offset);

}  // namespace plexus
