#include "reference/reduce.h"

#include <cmath>
#include <stdexcept>

namespace plexus::ref {

namespace {

// Which dims of a tensor of `sizes` a reduction over `dims` removes.
std::vector<bool> reduced_mask(const Sizes& sizes, const Sizes& dims) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<bool> reduced(sizes.size(), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd);
    if (nd == 0) continue;  // a 0-d tensor's dim 0 is its one element
    if (reduced[static_cast<size_t>(w)])
      throw std::invalid_argument("reference: dim " + std::to_string(w) + " given twice");
    reduced[static_cast<size_t>(w)] = true;
  }
  return reduced;
}

// A reduction's result shape, and for every element of self (row-major) the
// result element it goes to.
struct Plan {
  Sizes out_sizes;
  std::vector<int64_t> target;
  int64_t outputs = 0;
};

Plan plan(const Sizes& sizes, const Sizes& dims, bool keepdim) {
  std::vector<bool> reduced = reduced_mask(sizes, dims);
  Plan p;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!reduced[d])
      p.out_sizes.push_back(sizes[d]);
    else if (keepdim)
      p.out_sizes.push_back(1);
  }
  p.outputs = numel_of(p.out_sizes);
  p.target.resize(static_cast<size_t>(numel_of(sizes)));
  for_each_index(sizes, [&](const Sizes& idx, int64_t flat) {
    int64_t t = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (!reduced[d]) t = t * sizes[d] + idx[d];
    p.target[static_cast<size_t>(flat)] = t;
  });
  return p;
}

// Per result element: the long double sum of self's elements over dims.
std::vector<long double> float_sums(const Tensor& x, const Plan& p) {
  std::vector<long double> acc(static_cast<size_t>(p.outputs), 0.0L);
  for (int64_t k = 0; k < x.numel(); ++k)
    acc[static_cast<size_t>(p.target[static_cast<size_t>(k)])] += x.at(k);
  return acc;
}

Tensor extreme(const Tensor& self, const Sizes& dims, bool keepdim, bool largest) {
  Plan p = plan(self.sizes, dims, keepdim);
  Tensor out(self.dtype, p.out_sizes);
  std::vector<bool> seen(static_cast<size_t>(p.outputs), false);
  for (int64_t k = 0; k < self.numel(); ++k) {
    int64_t t = p.target[static_cast<size_t>(k)];
    bool first = !seen[static_cast<size_t>(t)];
    seen[static_cast<size_t>(t)] = true;
    if (self.integral()) {
      int64_t v = self.at_int(k), cur = out.at_int(t);
      if (first || (largest ? v > cur : v < cur)) out.set_int(t, v);
    } else {
      double v = self.at(k), cur = out.at(t);
      if (!first && std::isnan(cur)) continue;
      if (first || std::isnan(v) || (largest ? v > cur : v < cur)) out.set_float(t, v);
    }
  }
  for (bool s : seen)
    if (!s) throw std::invalid_argument("reference: amax/amin of no elements");
  return out;
}

Tensor arg_extreme(const Tensor& self, std::optional<int64_t> dim, bool keepdim, bool largest) {
  const int64_t nd = self.dim();
  Sizes dims;  // empty: every dim, the flattened tensor
  int64_t along = -1;
  if (dim) {
    int64_t w = wrap_dim(*dim, nd);
    if (nd > 0) {
      dims = {w};
      along = w;
    }
  }
  Plan p = plan(self.sizes, dims, keepdim);
  Tensor out(DType::I64, p.out_sizes);
  std::vector<bool> seen(static_cast<size_t>(p.outputs), false);
  std::vector<double> best(static_cast<size_t>(p.outputs));
  std::vector<int64_t> best_int(static_cast<size_t>(p.outputs));
  for_each_index(self.sizes, [&](const Sizes& idx, int64_t flat) {
    size_t t = static_cast<size_t>(p.target[static_cast<size_t>(flat)]);
    int64_t pos = along >= 0 ? idx[static_cast<size_t>(along)] : flat;
    bool take;
    if (!seen[t]) {
      take = true;
    } else if (self.integral()) {
      int64_t v = self.at_int(flat);
      take = largest ? v > best_int[t] : v < best_int[t];
    } else {
      double v = self.at(flat);
      take = !std::isnan(best[t]) && (std::isnan(v) || (largest ? v > best[t] : v < best[t]));
    }
    if (!take) return;
    seen[t] = true;
    if (self.integral())
      best_int[t] = self.at_int(flat);
    else
      best[t] = self.at(flat);
    out.set_int(static_cast<int64_t>(t), pos);
  });
  for (bool s : seen)
    if (!s) throw std::invalid_argument("reference: argmax/argmin of no elements");
  return out;
}

}  // namespace

int64_t reduced_count(const Sizes& sizes, const Sizes& dims) {
  std::vector<bool> reduced = reduced_mask(sizes, dims);
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (reduced[d]) n *= sizes[d];
  return n;
}

Tensor sum(const Tensor& self, const Sizes& dims, bool keepdim, DType dtype) {
  Tensor x = convert(self, dtype);
  Plan p = plan(x.sizes, dims, keepdim);
  Tensor out(dtype, p.out_sizes);
  if (out.integral()) {
    std::vector<int64_t> acc(static_cast<size_t>(p.outputs), 0);
    for (int64_t k = 0; k < x.numel(); ++k) {
      int64_t& a = acc[static_cast<size_t>(p.target[static_cast<size_t>(k)])];
      a = wrapping_add(a, x.at_int(k));
    }
    for (int64_t t = 0; t < p.outputs; ++t) out.set_int(t, acc[static_cast<size_t>(t)]);
  } else {
    std::vector<long double> acc = float_sums(x, p);
    for (int64_t t = 0; t < p.outputs; ++t)
      out.set_float(t, static_cast<double>(acc[static_cast<size_t>(t)]));
  }
  return out;
}

Tensor mean(const Tensor& self, const Sizes& dims, bool keepdim, DType dtype) {
  if (!is_floating(dtype)) throw std::invalid_argument("reference: mean needs a floating dtype");
  Tensor x = convert(self, dtype);
  Plan p = plan(x.sizes, dims, keepdim);
  long double count = static_cast<long double>(reduced_count(x.sizes, dims));
  Tensor out(dtype, p.out_sizes);
  std::vector<long double> acc = float_sums(x, p);
  for (int64_t t = 0; t < p.outputs; ++t)  // 0 / 0 is NaN: the mean of nothing
    out.set_float(t, static_cast<double>(acc[static_cast<size_t>(t)] / count));
  return out;
}

std::vector<double> sum_abs(const Tensor& self, const Sizes& dims) {
  Plan p = plan(self.sizes, dims, false);
  std::vector<double> acc(static_cast<size_t>(p.outputs), 0.0);
  for (int64_t k = 0; k < self.numel(); ++k)
    acc[static_cast<size_t>(p.target[static_cast<size_t>(k)])] += std::fabs(self.at(k));
  return acc;
}

Tensor amax(const Tensor& self, const Sizes& dims, bool keepdim) {
  return extreme(self, dims, keepdim, true);
}
Tensor amin(const Tensor& self, const Sizes& dims, bool keepdim) {
  return extreme(self, dims, keepdim, false);
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(self, dim, keepdim, true);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(self, dim, keepdim, false);
}

}  // namespace plexus::ref
