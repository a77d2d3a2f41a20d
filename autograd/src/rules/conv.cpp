// Rules of the conv family: conv2d, through the catalog's two conv2d backward
// ops (composites every plugin has; native kernels where a plugin has them).
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// conv2d(input, weight, bias, stride, padding, dilation, groups). The
// autograd layer sees the 4-D call (the C++ API batches unbatched input
// through a view, which has its own backward).
void conv2d_backward(BackwardContext& c) {
  const Tensor& input = c.input(0);
  const Tensor& weight = c.input(1);
  const Tensor& g = c.grad();
  std::vector<int64_t> stride = *c.int_list(3), padding = *c.int_list(4),
                       dilation = *c.int_list(5);
  int64_t groups = c.integer(6);
  if (c.needs(0))
    c.set(0, conv2d_backward_input(g, weight, input.sizes(), stride, padding, dilation, groups));
  if (c.needs(1))
    c.set(1, conv2d_backward_weight(g, input, weight.sizes(), stride, padding, dilation, groups));
  if (c.needs(2)) c.set(2, sum(g, std::vector<int64_t>{0, 2, 3}));
}

}  // namespace

void add_conv_rules(RuleTable& t) {
  t.push_back({"conv2d", "ConvolutionBackward", arg(0) | arg(1), false, conv2d_backward});
}

}  // namespace plexus::autograd
