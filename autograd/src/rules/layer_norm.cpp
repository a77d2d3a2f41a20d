// Rules of the layer_norm family.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// layer_norm(input, normalized_shape, weight, bias, eps): the input's
// gradient through the catalog's layer_norm_backward (one row pass where the
// plugin has a kernel); weight's is g * xhat, with xhat from layer_norm
// without weight and bias (one more forward pass), and bias's is g (the
// engine sums both over the leading dims).
void layer_norm_backward_rule(BackwardContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> shape = *c.int_list(1);
  const double eps = c.real(4);
  const Tensor& g = c.grad();
  if (c.needs(0))
    c.set(0, layer_norm_backward(g, x, shape, c.has(2) ? c.input(2) : Tensor(), eps));
  if (c.needs(2)) c.set(2, mul(g, layer_norm(x, shape, {}, {}, eps)));
  if (c.needs(3)) c.set(3, g);
}

}  // namespace

void add_layer_norm_rules(RuleTable& t) {
  t.push_back({"layer_norm", "LayerNormBackward", arg(0) | arg(2), false, layer_norm_backward_rule});
}

}  // namespace plexus::autograd
