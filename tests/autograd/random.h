// Seeded float64 test tensors for the autograd tests.
#pragma once

#include <random>

#include "plexus/factories.h"

namespace plexus::testing {

// A cpu float64 tensor of uniform values in [lo, hi], requiring grad.
inline Tensor leaf(std::vector<int64_t> sizes, unsigned seed, double lo = -2, double hi = 2) {
  Tensor t = empty(sizes, TensorOptions(DType::F64));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(gen);
  t.requires_grad_();
  return t;
}

}  // namespace plexus::testing
