#include "reference/embedding.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

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

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num,
                          int64_t padding_idx, bool scale_grad_by_freq,
                          std::vector<double>* scale) {
  const int64_t positions = indices.numel();
  const int64_t dim = grad.sizes.empty() ? 0 : grad.sizes.back();
  if (padding_idx < -1) padding_idx += num;
  std::vector<long double> acc(static_cast<size_t>(num * dim), 0.0L);
  std::vector<double> mag(acc.size(), 0.0), count(static_cast<size_t>(num), 0.0);
  for (int64_t p = 0; p < positions; ++p) {
    int64_t row = indices.at_int(p);
    if (row < 0 || row >= num)
      throw std::out_of_range("embedding_backward: index " + std::to_string(row) + " out of range");
    count[static_cast<size_t>(row)] += 1;
    if (row == padding_idx) continue;
    for (int64_t j = 0; j < dim; ++j) {
      double g = grad.at(p * dim + j);
      acc[static_cast<size_t>(row * dim + j)] += g;
      mag[static_cast<size_t>(row * dim + j)] += std::fabs(g);
    }
  }
  Tensor out(grad.dtype, {num, dim});
  for (int64_t r = 0; r < num; ++r)
    for (int64_t j = 0; j < dim; ++j) {
      size_t at = static_cast<size_t>(r * dim + j);
      long double v = acc[at];
      if (scale_grad_by_freq && count[static_cast<size_t>(r)] > 1) {
        v /= count[static_cast<size_t>(r)];
        mag[at] /= count[static_cast<size_t>(r)];
      }
      out.set_float(static_cast<int64_t>(at), static_cast<double>(v));
    }
  if (scale) *scale = std::move(mag);
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t m = index.numel();
  if (self.dim() == 0) {
    if (m != 1 || index.at_int(0) != 0) throw std::out_of_range("index_select: bad index");
    return self;
  }
  const int64_t d = wrap_dim(dim, self.dim());
  Sizes sizes = self.sizes;
  const int64_t n = sizes[static_cast<size_t>(d)];
  sizes[static_cast<size_t>(d)] = m;
  Tensor out(self.dtype, sizes);
  for (int64_t k = 0; k < m; ++k)
    if (index.at_int(k) < 0 || index.at_int(k) >= n)
      throw std::out_of_range("index_select: index " + std::to_string(index.at_int(k)));
  for_each_index(sizes, [&](const Sizes& idx, int64_t flat) {
    Sizes src = idx;
    src[static_cast<size_t>(d)] = index.at_int(idx[static_cast<size_t>(d)]);
    int64_t at = 0;
    for (size_t i = 0; i < src.size(); ++i) at = at * self.sizes[i] + src[i];
    if (out.integral())
      out.set_int(flat, self.at_int(at));
    else
      out.set_float(flat, self.at(at));
  });
  return out;
}

}  // namespace plexus::ref
