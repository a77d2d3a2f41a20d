// Rules of the loss family: mse_loss, through the catalog's
// mse_loss_backward (one pass where the plugin has a kernel) instead of its
// decomposition's three or four nodes.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// mse_loss(self, target, reduction): the gradient for self, and its
// negative for target (the engine sums each back over broadcast dims).
void mse_loss_backward_rule(BackwardContext& c) {
  Tensor g = mse_loss_backward(c.grad(), c.input(0), c.input(1), c.integer(2));
  if (c.needs(1)) c.set(1, neg(g));
  if (c.needs(0)) c.set(0, std::move(g));
}

}  // namespace

void add_loss_rules(RuleTable& t) {
  t.push_back({"mse_loss", "MseLossBackward", arg(0) | arg(1), false, mse_loss_backward_rule});
}

}  // namespace plexus::autograd
