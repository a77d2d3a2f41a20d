// Rules of the reduce family: sum, mean, amax, amin.
#include <algorithm>

#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// The reduced dims of a call (None or empty: all), wrapped and sorted.
std::vector<int64_t> reduced_dims(const std::optional<std::vector<int64_t>>& dim, int64_t ndim) {
  std::vector<int64_t> d;
  if (ndim == 0) return d;  // a 0-d tensor: dim 0 (or -1) is the tensor itself
  if (!dim || dim->empty()) {
    for (int64_t i = 0; i < ndim; ++i) d.push_back(i);
    return d;
  }
  for (int64_t x : *dim) d.push_back(x < 0 ? x + ndim : x);
  std::sort(d.begin(), d.end());
  return d;
}

// The gradient of a reduced result, with the reduced dims back as size 1 so it
// broadcasts over the input.
Tensor unreduce(const Tensor& g, const std::vector<int64_t>& dims, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (int64_t d : dims) r = r.unsqueeze(d);
  return r;
}

// sum.dim_IntList(self, dim, keepdim, dtype)
void sum_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> dims = reduced_dims(c.int_list(1), x.dim());
  c.set(0, unreduce(c.grad(), dims, c.boolean(2)).expand(x.sizes()));
}
// mean.dim(self, dim, keepdim, dtype)
void mean_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> dims = reduced_dims(c.int_list(1), x.dim());
  int64_t count = 1;
  for (int64_t d : dims) count *= x.size(d);
  Tensor g = div(unreduce(c.grad(), dims, c.boolean(2)), Scalar(static_cast<double>(count)));
  c.set(0, g.expand(x.sizes()));
}
// amax/amin(self, dim, keepdim): the gradient is shared evenly by the
// elements equal to the extreme (PyTorch's rule).
void extreme_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> dims = reduced_dims(c.int_list(1), x.dim());
  bool keepdim = c.boolean(2);
  Tensor hit = eq(x, unreduce(c.result(), dims, keepdim));
  Tensor w = where(hit, Scalar(1.0), Scalar(0.0));
  Tensor count = sum(w, dims, true);
  c.set(0, div(mul(w, unreduce(c.grad(), dims, keepdim)), count));
}

}  // namespace

void add_reduce_rules(RuleTable& t) {
  t.push_back({"sum.dim_IntList", "SumBackward", arg(0), false, sum_backward});
  t.push_back({"mean.dim", "MeanBackward", arg(0), false, mean_backward});
  t.push_back({"amax", "AmaxBackward", arg(0), true, extreme_backward});
  t.push_back({"amin", "AminBackward", arg(0), true, extreme_backward});
}

}  // namespace plexus::autograd
