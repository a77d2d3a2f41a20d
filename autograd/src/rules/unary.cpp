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
// tanh: 1 - tanh^2.
void tanh_backward(BackwardContext& c) {
  const Tensor& y = c.result();
  c.set(0, mul(c.grad(), sub(ones({}, {y.dtype(), y.device()}), mul(y, y))));
}
// sigmoid: s (1 - s).
void sigmoid_backward(BackwardContext& c) {
  const Tensor& s = c.result();
  c.set(0, mul(c.grad(), mul(s, sub(ones({}, {s.dtype(), s.device()}), s))));
}
// relu: 1 where the result is positive (PyTorch: 0 at 0). A product with the
// mask in the gradient's dtype: dense same-dtype kernels, where `where` with
// a scalar goes through a broadcast.
void relu_backward(BackwardContext& c) {
  const Tensor& g = c.grad();
  c.set(0, mul(g, gt(c.result(), Scalar(0)).to(g.dtype())));
}
// silu: s (1 + x (1 - s)), s = sigmoid(x).
void silu_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  Tensor s = sigmoid(x);
  Tensor one = ones({}, {x.dtype(), x.device()});
  c.set(0, mul(c.grad(), mul(s, add(one, mul(x, sub(one, s))))));
}
// gelu(self, approximate). 'none': Phi(x) + x phi(x), with Phi(x) = gelu(x) / x
// (1/2 at 0) and phi the normal density. 'tanh': 0.5 (1 + t) + 0.5 x (1 - t^2)
// k (1 + 3 a x^2), t = tanh(k (x + a x^3)).
void gelu_backward(BackwardContext& c) {
  const Tensor& x = c.input(0);
  Tensor one = ones({}, {x.dtype(), x.device()});
  Tensor x2 = mul(x, x);
  if (c.string(1) == "none") {
    Tensor cdf = where(eq(x, Scalar(0)), Scalar(0.5), div(gelu(x), x));
    Tensor pdf = mul(exp(mul(x2, Scalar(-0.5))), Scalar(1.0 / std::sqrt(2.0 * M_PI)));
    c.set(0, mul(c.grad(), add(cdf, mul(x, pdf))));
    return;
  }
  const double k = std::sqrt(2.0 / M_PI), a = 0.044715;
  Tensor t = tanh(mul(add(x, mul(mul(x2, x), Scalar(a))), Scalar(k)));
  Tensor left = mul(add(one, t), Scalar(0.5));
  Tensor dinner = mul(add(one, mul(x2, Scalar(3 * a))), Scalar(k));
  Tensor right = mul(mul(mul(x, sub(one, mul(t, t))), dinner), Scalar(0.5));
  c.set(0, mul(c.grad(), add(left, right)));
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
  t.push_back({"tanh", "TanhBackward", 0, true, tanh_backward});
  t.push_back({"sigmoid", "SigmoidBackward", 0, true, sigmoid_backward});
  t.push_back({"relu", "ReluBackward", 0, true, relu_backward});
  t.push_back({"silu", "SiluBackward", arg(0), false, silu_backward});
  t.push_back({"gelu", "GeluBackward", arg(0), false, gelu_backward});
  t.push_back({"clamp", "ClampBackward", arg(0), false, clamp_backward});
}

}  // namespace plexus::autograd
