// Rules of the layer_norm family.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// layer_norm(input, normalized_shape, weight, bias, eps), over the last
// k = len(normalized_shape) dims, with xhat = (x - mean) * rstd:
//   d/dx = rstd (gw - mean(gw) - xhat mean(gw xhat)), gw = g * weight
//   d/dweight = g xhat, d/dbias = g (the engine sums both over the other dims)
void layer_norm_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  const int64_t k = static_cast<int64_t>(c.int_list(1)->size());
  std::vector<int64_t> dims;
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
  const double eps = c.real(4);
  Tensor centred = sub(x, mean(x, dims, true));
  Tensor rstd = rsqrt(add(mean(mul(centred, centred), dims, true), eps));
  Tensor xhat = mul(centred, rstd);
  const Tensor& g = c.grad();
  if (c.needs(0)) {
    Tensor gw = c.has(2) ? mul(g, c.input(2)) : g;
    Tensor inner = sub(sub(gw, mean(gw, dims, true)), mul(xhat, mean(mul(gw, xhat), dims, true)));
    c.set(0, mul(rstd, inner));
  }
  if (c.needs(2)) c.set(2, mul(g, xhat));
  if (c.needs(3)) c.set(3, g);
}

}  // namespace

void add_layer_norm_rules(RuleTable& t) {
  t.push_back({"layer_norm", "LayerNormBackward", arg(0) | arg(2), false, layer_norm_backward});
}

}  // namespace plexus::autograd
