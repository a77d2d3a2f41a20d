// Rules of the unary family: neg, abs, exp, log, sqrt, rsqrt, sin, cos, tanh,
// sigmoid, relu, silu, gelu ('tanh' form), clamp.
#include <cmath>

#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

void neg_backward(BackwardContext& c) {
  c.set(0, neg(c.grad()));
}
// abs: sign(self), 0 at 0.
void abs_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  Tensor sign = where(gt(x, Scalar(0)), Scalar(1.0), where(lt(x, Scalar(0)), Scalar(-1.0), Scalar(0.0)));
  c.set(0, mul(c.grad(), sign));
}
void exp_backward(BackwardContext& c) {
  c.set(0, mul(c.grad(), c.result()));
}
void log_backward(BackwardContext& c) {
  c.set(0, div(c.grad(), c.input(0)));
}
// sqrt: 1 / (2 sqrt(x)).
void sqrt_backward(BackwardContext& c) {
  c.set(0, div(c.grad(), mul(c.result(), Scalar(2.0))));
}
// rsqrt: -1/2 x^(-3/2) = -1/2 rsqrt(x)^3.
void rsqrt_backward(BackwardContext& c) {
  const Tensor& r = c.result();
  c.set(0, mul(mul(c.grad(), mul(r, mul(r, r))), Scalar(-0.5)));
}
void sin_backward(BackwardContext& c) {
  c.set(0, mul(c.grad(), cos(c.input(0))));
}
void cos_backward(BackwardContext& c) {
  c.set(0, neg(mul(c.grad(), sin(c.input(0)))));
}
// tanh, sigmoid, relu, silu and gelu: through the catalog's gradient ops
// (one kernel each where the plugin has one).
void tanh_backward_rule(BackwardContext& c) {
  c.set(0, tanh_backward(c.grad(), c.result()));
}
void sigmoid_backward_rule(BackwardContext& c) {
  c.set(0, sigmoid_backward(c.grad(), c.result()));
}
// relu: the gradient where the result is positive (PyTorch: 0 at 0).
void relu_backward_rule(BackwardContext& c) {
  c.set(0, threshold_backward(c.grad(), c.result(), Scalar(0)));
}
void silu_backward_rule(BackwardContext& c) {
  c.set(0, silu_backward(c.grad(), c.input(0)));
}
void gelu_backward_rule(BackwardContext& c) {
  c.set(0, gelu_backward(c.grad(), c.input(0), c.string(1)));
}
// clamp(self, min, max): 1 inside the bounds (bounds included), 0 outside.
void clamp_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  Tensor g = c.grad();
  if (c.has(1)) g = where(lt(x, c.scalar(1)), Scalar(0.0), g);
  if (c.has(2)) g = where(gt(x, c.scalar(2)), Scalar(0.0), g);
  c.set(0, g);
}

}  // namespace

void add_unary_rules(RuleTable& t) {
  t.push_back({"neg", "NegBackward", 0, false, neg_backward});
  t.push_back({"abs", "AbsBackward", arg(0), false, abs_backward});
  t.push_back({"exp", "ExpBackward", 0, true, exp_backward});
  t.push_back({"log", "LogBackward", arg(0), false, log_backward});
  t.push_back({"sqrt", "SqrtBackward", 0, true, sqrt_backward});
  t.push_back({"rsqrt", "RsqrtBackward", 0, true, rsqrt_backward});
  t.push_back({"sin", "SinBackward", arg(0), false, sin_backward});
  t.push_back({"cos", "CosBackward", arg(0), false, cos_backward});
  t.push_back({"tanh", "TanhBackward", 0, true, tanh_backward_rule});
  t.push_back({"sigmoid", "SigmoidBackward", 0, true, sigmoid_backward_rule});
  t.push_back({"relu", "ReluBackward", 0, true, relu_backward_rule});
  t.push_back({"silu", "SiluBackward", arg(0), false, silu_backward_rule});
  t.push_back({"gelu", "GeluBackward", arg(0), false, gelu_backward_rule});
  t.push_back({"clamp", "ClampBackward", arg(0), false, clamp_backward});
}

}  // namespace plexus::autograd
