// The random ops' streams, from their definition (Note [random streams] in
// plexus/sdk/philox.hpp, restated here): element k of self, in row-major
// order, is drawn from Philox4x32-10 with counter offset + k and key seed.
// Written apart from the SDK's version on purpose; test_random_reference
// checks both against Random123's known answers.
#pragma once

#include <array>
#include <cstdint>

#include "reference/tensor.h"

namespace plexus::ref {

// Philox4x32 with 10 rounds: ctr (four 32-bit words), key (two).
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key);

// self's values after uniform_, normal_ or bernoulli_ (floating values in
// double, unrounded: the comparison rounds them to the dtype).
Tensor uniform(DType dtype, const Sizes& sizes, double from, double to, uint64_t seed,
               uint64_t offset);
Tensor normal(DType dtype, const Sizes& sizes, double mean, double std, uint64_t seed,
              uint64_t offset);
Tensor bernoulli(DType dtype, const Sizes& sizes, double p, uint64_t seed, uint64_t offset);

}  // namespace plexus::ref
