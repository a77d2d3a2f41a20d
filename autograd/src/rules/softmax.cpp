// Rules of the softmax family: softmax, log_softmax.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// softmax.int(self, dim, dtype) and log_softmax.int: through the catalog's
// softmax_backward and log_softmax_backward (one kernel where the plugin has
// one). The gradient is in the result's dtype; the engine converts it to
// self's.
void softmax_backward_rule(BackwardContext& c) {
  c.set(0, softmax_backward(c.grad(), c.result(), c.integer(1)));
}
void log_softmax_backward_rule(BackwardContext& c) {
  c.set(0, log_softmax_backward(c.grad(), c.result(), c.integer(1)));
}

}  // namespace

void add_softmax_rules(RuleTable& t) {
  t.push_back({"softmax.int", "SoftmaxBackward", 0, true, softmax_backward_rule});
  t.push_back({"log_softmax.int", "LogSoftmaxBackward", 0, true, log_softmax_backward_rule});
}

}  // namespace plexus::autograd
