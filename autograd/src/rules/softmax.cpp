// Rules of the softmax family: softmax, log_softmax.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// softmax.int(self, dim, dtype): y (g - sum(g y, dim)).
void softmax_backward(BackwardContext& c) {
  const Tensor& y = c.result();
  int64_t dim = c.integer(1);
  Tensor gy = mul(c.grad(), y);
  c.set(0, sub(gy, mul(y, sum(gy, std::vector<int64_t>{dim}, true))));
}
// log_softmax.int(self, dim, dtype): g - exp(y) sum(g, dim).
void log_softmax_backward(BackwardContext& c) {
  const Tensor& y = c.result();
  int64_t dim = c.integer(1);
  c.set(0, sub(c.grad(), mul(exp(y), sum(c.grad(), std::vector<int64_t>{dim}, true))));
}

}  // namespace

void add_softmax_rules(RuleTable& t) {
  t.push_back({"softmax.int", "SoftmaxBackward", 0, true, softmax_backward});
  t.push_back({"log_softmax.int", "LogSoftmaxBackward", 0, true, log_softmax_backward});
}

}  // namespace plexus::autograd
