// Rules of the binary family: add, sub, mul, div, pow, maximum, minimum.
// Broadcasting is undone by the engine (conform: sum_to the input's shape).
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// add.Tensor(self, other, *, alpha): d/dself = 1, d/dother = alpha.
void add_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, c.grad());
  if (c.needs(1)) c.set(1, mul(c.grad(), c.scalar(2)));
}
// sub.Tensor(self, other, *, alpha): d/dother = -alpha.
void sub_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, c.grad());
  if (c.needs(1)) c.set(1, mul(c.grad(), Scalar(-c.scalar(2).to_double())));
}
// mul.Tensor(self, other)
void mul_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, mul(c.grad(), c.input(1)));
  if (c.needs(1)) c.set(1, mul(c.grad(), c.input(0)));
}
// div.Tensor(self, other): d/dself = 1/other, d/dother = -self/other^2.
void div_backward(BackwardContext& c) {
  const Tensor& other = c.input(1);
  if (c.needs(0)) c.set(0, div(c.grad(), other));
  if (c.needs(1)) c.set(1, neg(div(mul(c.grad(), c.input(0)), mul(other, other))));
}
// pow.Tensor_Scalar(self, exponent): e * self^(e-1); 0 when e is 0.
void pow_scalar_backward(BackwardContext& c) {
  double e = c.scalar(1).to_double();
  if (e == 0) {
    c.set(0, mul(c.grad(), Scalar(0.0)));
    return;
  }
  c.set(0, mul(mul(c.grad(), pow(c.input(0), Scalar(e - 1))), Scalar(e)));
}
// pow.Tensor_Tensor(self, exponent): d/dexp = result * log(self), taken as 0
// where self is 0 and the exponent is not negative (PyTorch's convention).
void pow_tensor_backward(BackwardContext& c) {
  const Tensor &self = c.input(0), &e = c.input(1);
  if (c.needs(0)) c.set(0, mul(mul(c.grad(), e), pow(self, sub(e, Scalar(1)))));
  if (c.needs(1)) {
    Tensor d = mul(c.result(), log(self));
    d = where(mul(eq(self, Scalar(0)), ge(e, Scalar(0))), Scalar(0.0), d);
    c.set(1, mul(c.grad(), d));
  }
}
// maximum/minimum(self, other): the gradient goes to the larger (smaller)
// input; ties split it in half.
Tensor share(const Tensor& self, const Tensor& other, bool larger, const Tensor& grad) {
  Tensor wins = larger ? gt(self, other) : lt(self, other);
  Tensor half = where(eq(self, other), Scalar(0.5), Scalar(0.0));
  Tensor w = where(wins, Scalar(1.0), half);
  return mul(grad, w);
}
void maximum_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, share(c.input(0), c.input(1), true, c.grad()));
  if (c.needs(1)) c.set(1, share(c.input(1), c.input(0), true, c.grad()));
}
void minimum_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, share(c.input(0), c.input(1), false, c.grad()));
  if (c.needs(1)) c.set(1, share(c.input(1), c.input(0), false, c.grad()));
}

}  // namespace

void add_binary_rules(RuleTable& t) {
  t.push_back({"add.Tensor", "AddBackward", 0, false, add_backward});
  t.push_back({"sub.Tensor", "SubBackward", 0, false, sub_backward});
  t.push_back({"mul.Tensor", "MulBackward", arg(0) | arg(1), false, mul_backward});
  t.push_back({"div.Tensor", "DivBackward", arg(0) | arg(1), false, div_backward});
  t.push_back({"div.Tensor_mode", "DivBackward", 0, false, nullptr});  // floor/trunc: piecewise constant
  t.push_back({"pow.Tensor_Scalar", "PowBackward", arg(0), false, pow_scalar_backward});
  t.push_back({"pow.Tensor_Tensor", "PowBackward", arg(0) | arg(1), true, pow_tensor_backward});
  t.push_back({"maximum", "MaximumBackward", arg(0) | arg(1), false, maximum_backward});
  t.push_back({"minimum", "MinimumBackward", arg(0) | arg(1), false, minimum_backward});
}

}  // namespace plexus::autograd
