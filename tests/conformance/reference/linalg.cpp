#include "reference/linalg.h"

#include <cmath>
#include <stdexcept>

namespace plexus::ref {

namespace {

// The shape facts of a (batched) product a [b, n, k] @ c [b, k, p]; 2-D
// operands are one batch.
struct Dims {
  int64_t batch, n, k, p;
};

Dims product_dims(const Tensor& a, const Tensor& c) {
  if (a.dim() != c.dim() || (a.dim() != 2 && a.dim() != 3))
    throw std::invalid_argument("reference: product of " + sizes_str(a.sizes) + " and " +
                                sizes_str(c.sizes));
  const bool batched = a.dim() == 3;
  const size_t o = batched ? 1 : 0;
  Dims d{batched ? a.sizes[0] : 1, a.sizes[o], a.sizes[o + 1], c.sizes[o + 1]};
  if (c.sizes[o] != d.k || (batched && c.sizes[0] != d.batch))
    throw std::invalid_argument("reference: product of " + sizes_str(a.sizes) + " and " +
                                sizes_str(c.sizes) + " does not fit");
  return d;
}

// The naive product: every result element adds up its k terms in order.
Tensor product(const Tensor& a, const Tensor& c) {
  Dims d = product_dims(a, c);
  Sizes out_sizes = {d.n, d.p};
  if (a.dim() == 3) out_sizes.insert(out_sizes.begin(), d.batch);
  Tensor out(a.dtype, out_sizes);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t j = 0; j < d.p; ++j) {
        int64_t at = (b * d.n + i) * d.p + j;
        if (out.integral()) {
          int64_t s = 0;
          for (int64_t q = 0; q < d.k; ++q)
            s = wrapping_add(s, wrapping_mul(a.at_int((b * d.n + i) * d.k + q),
                                             c.at_int((b * d.k + q) * d.p + j)));
          out.set_int(at, s);
        } else {
          long double s = 0;
          for (int64_t q = 0; q < d.k; ++q)
            s += static_cast<long double>(a.at((b * d.n + i) * d.k + q)) *
                 c.at((b * d.k + q) * d.p + j);
          out.set_float(at, static_cast<double>(s));
        }
      }
  return out;
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  if (self.dim() != 2) throw std::invalid_argument("reference: mm of a non-matrix");
  return product(self, mat2);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  if (self.dim() != 3) throw std::invalid_argument("reference: bmm of a non-batch");
  return product(self, mat2);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, double beta,
             double alpha) {
  Tensor prod = mm(mat1, mat2);
  if (broadcast_shapes(self.sizes, prod.sizes) != prod.sizes)
    throw std::invalid_argument("reference: addmm self does not broadcast");
  Tensor out(prod.dtype, prod.sizes);
  const int64_t ib = static_cast<int64_t>(beta), ia = static_cast<int64_t>(alpha);
  for_each_index(prod.sizes, [&](const Sizes& idx, int64_t flat) {
    int64_t s = broadcast_index(self.sizes, prod.sizes, idx);
    // A zero factor drops its term, NaN and inf included.
    if (out.integral()) {
      int64_t scaled = ib == 0 ? 0 : wrapping_mul(ib, self.at_int(s));
      out.set_int(flat, wrapping_add(scaled, ia == 0 ? 0 : wrapping_mul(ia, prod.at_int(flat))));
    } else {
      long double scaled = beta == 0 ? 0.0L : static_cast<long double>(beta) * self.at(s);
      long double product = alpha == 0 ? 0.0L : static_cast<long double>(alpha) * prod.at(flat);
      out.set_float(flat, static_cast<double>(scaled + product));
    }
  });
  return out;
}

std::vector<double> product_abs(const Tensor& self, const Tensor& mat2) {
  Dims d = product_dims(self, mat2);
  std::vector<double> out(static_cast<size_t>(d.batch * d.n * d.p), 0.0);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t j = 0; j < d.p; ++j) {
        double s = 0;
        for (int64_t q = 0; q < d.k; ++q)
          s += std::fabs(self.at((b * d.n + i) * d.k + q) * mat2.at((b * d.k + q) * d.p + j));
        out[static_cast<size_t>((b * d.n + i) * d.p + j)] = s;
      }
  return out;
}

}  // namespace plexus::ref
