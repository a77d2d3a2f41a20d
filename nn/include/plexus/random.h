// Seeded random tensors. A Generator gives the same stream on every run for
// the same seed; tensors are drawn on the host and moved to their device.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "plexus/tensor.h"

namespace plexus {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : engine_(seed) {}
  void manual_seed(uint64_t seed) { engine_.seed(seed); }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// Uniform in [lo, hi).
Tensor rand(IntArrayRef sizes, Generator& gen, TensorOptions options = {}, double lo = 0,
            double hi = 1);
// Normal with this mean and standard deviation.
Tensor randn(IntArrayRef sizes, Generator& gen, TensorOptions options = {}, double mean = 0,
             double stddev = 1);
// A random permutation of 0 .. n-1.
std::vector<int64_t> randperm(int64_t n, Generator& gen);

}  // namespace plexus
