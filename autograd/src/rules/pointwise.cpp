// Rules of the pointwise family: where, lerp, addcmul, addcdiv.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// where.self(condition, self, other)
void where_backward(BackwardContext& c) {
  const Tensor& cond = c.input(0);
  if (c.needs(1)) c.set(1, where(cond, c.grad(), Scalar(0.0)));
  if (c.needs(2)) c.set(2, where(cond, Scalar(0.0), c.grad()));
}
// lerp.Scalar(self, end, weight): self + w (end - self).
void lerp_backward(BackwardContext& c) {
  double w = c.real(2);
  if (c.needs(0)) c.set(0, mul(c.grad(), Scalar(1 - w)));
  if (c.needs(1)) c.set(1, mul(c.grad(), Scalar(w)));
}
// addcmul(self, tensor1, tensor2, value): self + value t1 t2.
void addcmul_backward(BackwardContext& c) {
  Scalar v = c.scalar(3);
  if (c.needs(0)) c.set(0, c.grad());
  if (c.needs(1)) c.set(1, mul(mul(c.grad(), c.input(2)), v));
  if (c.needs(2)) c.set(2, mul(mul(c.grad(), c.input(1)), v));
}
// addcdiv(self, tensor1, tensor2, value): self + value t1 / t2.
void addcdiv_backward(BackwardContext& c) {
  Scalar v = c.scalar(3);
  const Tensor &t1 = c.input(1), &t2 = c.input(2);
  if (c.needs(0)) c.set(0, c.grad());
  if (c.needs(1)) c.set(1, mul(div(c.grad(), t2), v));
  if (c.needs(2)) c.set(2, mul(neg(div(mul(c.grad(), t1), mul(t2, t2))), v));
}

}  // namespace

void add_pointwise_rules(RuleTable& t) {
  t.push_back({"where.self", "WhereBackward", arg(0), false, where_backward});
  t.push_back({"lerp.Scalar", "LerpBackward", 0, false, lerp_backward});
  t.push_back({"addcmul", "AddcmulBackward", arg(1) | arg(2), false, addcmul_backward});
  t.push_back({"addcdiv", "AddcdivBackward", arg(1) | arg(2), false, addcdiv_backward});
}

}  // namespace plexus::autograd
