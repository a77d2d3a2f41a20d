// C++ API: math functions of one tensor.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

Tensor unary(const Operator& op, const Tensor& self) {
  return detail::call(op, {Value::tensor(self)});
}
const Tensor& unary_out(const Operator& op, const Tensor& out, const Tensor& self) {
  detail::call(op, {Value::tensor(self), Value::tensor(out)});
  return out;
}
const Tensor& unary_(const Operator& op, const Tensor& self) {
  detail::call(op, {Value::tensor(self)});
  return self;
}

}  // namespace
Tensor neg(const Tensor& self) {
  static const Operator& op = detail::op("neg");
  return unary(op, self);
}
const Tensor& neg_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("neg.out");
  return unary_out(op, out, self);
}
const Tensor& neg_(const Tensor& self) {
  static const Operator& op = detail::op("neg_");
  return unary_(op, self);
}
Tensor Tensor::neg() const {
  return plexus::neg(*this);
}

Tensor abs(const Tensor& self) {
  static const Operator& op = detail::op("abs");
  return unary(op, self);
}
const Tensor& abs_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("abs.out");
  return unary_out(op, out, self);
}
const Tensor& abs_(const Tensor& self) {
  static const Operator& op = detail::op("abs_");
  return unary_(op, self);
}
Tensor Tensor::abs() const {
  return plexus::abs(*this);
}

Tensor exp(const Tensor& self) {
  static const Operator& op = detail::op("exp");
  return unary(op, self);
}
const Tensor& exp_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("exp.out");
  return unary_out(op, out, self);
}
const Tensor& exp_(const Tensor& self) {
  static const Operator& op = detail::op("exp_");
  return unary_(op, self);
}
Tensor Tensor::exp() const {
  return plexus::exp(*this);
}

Tensor log(const Tensor& self) {
  static const Operator& op = detail::op("log");
  return unary(op, self);
}
const Tensor& log_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("log.out");
  return unary_out(op, out, self);
}
const Tensor& log_(const Tensor& self) {
  static const Operator& op = detail::op("log_");
  return unary_(op, self);
}
Tensor Tensor::log() const {
  return plexus::log(*this);
}

Tensor sqrt(const Tensor& self) {
  static const Operator& op = detail::op("sqrt");
  return unary(op, self);
}
const Tensor& sqrt_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("sqrt.out");
  return unary_out(op, out, self);
}
const Tensor& sqrt_(const Tensor& self) {
  static const Operator& op = detail::op("sqrt_");
  return unary_(op, self);
}
Tensor Tensor::sqrt() const {
  return plexus::sqrt(*this);
}

Tensor rsqrt(const Tensor& self) {
  static const Operator& op = detail::op("rsqrt");
  return unary(op, self);
}
const Tensor& rsqrt_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("rsqrt.out");
  return unary_out(op, out, self);
}
const Tensor& rsqrt_(const Tensor& self) {
  static const Operator& op = detail::op("rsqrt_");
  return unary_(op, self);
}
Tensor Tensor::rsqrt() const {
  return plexus::rsqrt(*this);
}

Tensor sin(const Tensor& self) {
  static const Operator& op = detail::op("sin");
  return unary(op, self);
}
const Tensor& sin_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("sin.out");
  return unary_out(op, out, self);
}
const Tensor& sin_(const Tensor& self) {
  static const Operator& op = detail::op("sin_");
  return unary_(op, self);
}
Tensor Tensor::sin() const {
  return plexus::sin(*this);
}

Tensor cos(const Tensor& self) {
  static const Operator& op = detail::op("cos");
  return unary(op, self);
}
const Tensor& cos_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("cos.out");
  return unary_out(op, out, self);
}
const Tensor& cos_(const Tensor& self) {
  static const Operator& op = detail::op("cos_");
  return unary_(op, self);
}
Tensor Tensor::cos() const {
  return plexus::cos(*this);
}

Tensor tanh(const Tensor& self) {
  static const Operator& op = detail::op("tanh");
  return unary(op, self);
}
const Tensor& tanh_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("tanh.out");
  return unary_out(op, out, self);
}
const Tensor& tanh_(const Tensor& self) {
  static const Operator& op = detail::op("tanh_");
  return unary_(op, self);
}
Tensor Tensor::tanh() const {
  return plexus::tanh(*this);
}

Tensor sigmoid(const Tensor& self) {
  static const Operator& op = detail::op("sigmoid");
  return unary(op, self);
}
const Tensor& sigmoid_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("sigmoid.out");
  return unary_out(op, out, self);
}
const Tensor& sigmoid_(const Tensor& self) {
  static const Operator& op = detail::op("sigmoid_");
  return unary_(op, self);
}
Tensor Tensor::sigmoid() const {
  return plexus::sigmoid(*this);
}

Tensor relu(const Tensor& self) {
  static const Operator& op = detail::op("relu");
  return unary(op, self);
}
const Tensor& relu_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("relu.out");
  return unary_out(op, out, self);
}
const Tensor& relu_(const Tensor& self) {
  static const Operator& op = detail::op("relu_");
  return unary_(op, self);
}
Tensor Tensor::relu() const {
  return plexus::relu(*this);
}

Tensor silu(const Tensor& self) {
  static const Operator& op = detail::op("silu");
  return unary(op, self);
}
const Tensor& silu_out(const Tensor& out, const Tensor& self) {
  static const Operator& op = detail::op("silu.out");
  return unary_out(op, out, self);
}
const Tensor& silu_(const Tensor& self) {
  static const Operator& op = detail::op("silu_");
  return unary_(op, self);
}

Tensor gelu(const Tensor& self, const std::string& approximate) {
  static const Operator& op = detail::op("gelu");
  return detail::call(op, {Value::tensor(self), Value::string(approximate)});
}
const Tensor& gelu_out(const Tensor& out, const Tensor& self, const std::string& approximate) {
  static const Operator& op = detail::op("gelu.out");
  detail::call(op, {Value::tensor(self), Value::string(approximate), Value::tensor(out)});
  return out;
}
const Tensor& gelu_(const Tensor& self, const std::string& approximate) {
  static const Operator& op = detail::op("gelu_");
  detail::call(op, {Value::tensor(self), Value::string(approximate)});
  return self;
}

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  static const Operator& op = detail::op("clamp");
  return detail::call(op, {Value::tensor(self), detail::opt_scalar(min), detail::opt_scalar(max)});
}
const Tensor& clamp_out(const Tensor& out, const Tensor& self, std::optional<Scalar> min,
                        std::optional<Scalar> max) {
  static const Operator& op = detail::op("clamp.out");
  detail::call(op, {Value::tensor(self), detail::opt_scalar(min), detail::opt_scalar(max),
                    Value::tensor(out)});
  return out;
}
const Tensor& clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  static const Operator& op = detail::op("clamp_");
  detail::call(op, {Value::tensor(self), detail::opt_scalar(min), detail::opt_scalar(max)});
  return self;
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return plexus::clamp(*this, min, max);
}

// Gradients of the activations.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold) {
  static const Operator& op = detail::op("threshold_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(self), Value::scalar(threshold)});
}
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output) {
  static const Operator& op = detail::op("sigmoid_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(output)});
}
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output) {
  static const Operator& op = detail::op("tanh_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(output)});
}
Tensor silu_backward(const Tensor& grad_output, const Tensor& self) {
  static const Operator& op = detail::op("silu_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(self)});
}
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  static const Operator& op = detail::op("gelu_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(self),
                           Value::string(approximate)});
}

}  // namespace plexus
