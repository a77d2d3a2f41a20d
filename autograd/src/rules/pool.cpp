// Rules of the pool family: max_pool2d, through the catalog's
// max_pool2d_backward (which finds each window's maximum again from self).
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)
void max_pool2d_backward_rule(BackwardContext& c) {
  c.set(0, max_pool2d_backward(c.grad(), c.input(0), *c.int_list(1), *c.int_list(2),
                               *c.int_list(3), *c.int_list(4), c.boolean(5)));
}

}  // namespace

void add_pool_rules(RuleTable& t) {
  t.push_back({"max_pool2d", "MaxPool2DBackward", arg(0), false, max_pool2d_backward_rule});
}

}  // namespace plexus::autograd
