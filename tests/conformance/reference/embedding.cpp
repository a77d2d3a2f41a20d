#include "reference/embedding.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace plexus::ref {

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  if (weight.dim() != 2) throw std::invalid_argument("embedding: 2-D weight expected");
  const int64_t num = weight.sizes[0], len = weight.sizes[1];
  Sizes sizes = indices.sizes;
  sizes.push_back(len);
  Tensor out(weight.dtype, sizes);
  for (int64_t k = 0; k < indices.numel(); ++k) {
    int64_t row = indices.at_int(k);
    if (row < 0 || row >= num)
      throw std::out_of_range("embedding: index " + std::to_string(row) + " out of range");
    for (int64_t j = 0; j < len; ++j) {
      if (out.integral())
        out.set_int(k * len + j, weight.at_int(row * len + j));
      else
        out.set_float(k * len + j, weight.at(row * len + j));
    }
  }
  return out;
}

}  // namespace plexus::ref
