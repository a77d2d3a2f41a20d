// C++ API: binary arithmetic and the arithmetic operators.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor add(const Tensor& self, const Tensor& other, Scalar alpha) {
  static const Operator& op = detail::op("add.Tensor");
  return detail::call(op, {Value::tensor(self), Value::tensor(other), Value::scalar(alpha)});
}
Tensor add(const Tensor& self, Scalar other, Scalar alpha) {
  return add(self, wrapped_scalar(other), alpha);
}
const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha) {
  static const Operator& op = detail::op("add.out");
  detail::call(
      op, {Value::tensor(self), Value::tensor(other), Value::scalar(alpha), Value::tensor(out)});
  return out;
}
Tensor Tensor::add(const Tensor& other, Scalar alpha) const {
  return plexus::add(*this, other, alpha);
}
const Tensor& Tensor::add_(const Tensor& other, Scalar alpha) const {
  static const Operator& op = detail::op("add_.Tensor");
  detail::call(op, {Value::tensor(*this), Value::tensor(other), Value::scalar(alpha)});
  return *this;
}

Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha) {
  static const Operator& op = detail::op("sub.Tensor");
  return detail::call(op, {Value::tensor(self), Value::tensor(other), Value::scalar(alpha)});
}
Tensor sub(const Tensor& self, Scalar other, Scalar alpha) {
  return sub(self, wrapped_scalar(other), alpha);
}
const Tensor& sub_out(const Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha) {
  static const Operator& op = detail::op("sub.out");
  detail::call(
      op, {Value::tensor(self), Value::tensor(other), Value::scalar(alpha), Value::tensor(out)});
  return out;
}
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const {
  return plexus::sub(*this, other, alpha);
}
const Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) const {
  static const Operator& op = detail::op("sub_.Tensor");
  detail::call(op, {Value::tensor(*this), Value::tensor(other), Value::scalar(alpha)});
  return *this;
}

Tensor mul(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("mul.Tensor");
  return detail::call(op, {Value::tensor(self), Value::tensor(other)});
}
Tensor mul(const Tensor& self, Scalar other) {
  return mul(self, wrapped_scalar(other));
}
const Tensor& mul_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("mul.out");
  detail::call(op, {Value::tensor(self), Value::tensor(other), Value::tensor(out)});
  return out;
}
Tensor Tensor::mul(const Tensor& other) const {
  return plexus::mul(*this, other);
}
const Tensor& Tensor::mul_(const Tensor& other) const {
  static const Operator& op = detail::op("mul_.Tensor");
  detail::call(op, {Value::tensor(*this), Value::tensor(other)});
  return *this;
}

// Without a rounding mode, div goes to div.Tensor, which backends implement as div.out.
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static const Operator& op = detail::op("div.Tensor");
    return detail::call(op, {Value::tensor(self), Value::tensor(other)});
  }
  static const Operator& op = detail::op("div.Tensor_mode");
  return detail::call(
      op, {Value::tensor(self), Value::tensor(other), detail::opt_string(rounding_mode)});
}
Tensor div(const Tensor& self, Scalar other, std::optional<std::string> rounding_mode) {
  return div(self, wrapped_scalar(other), std::move(rounding_mode));
}
const Tensor& div_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static const Operator& op = detail::op("div.out");
    detail::call(op, {Value::tensor(self), Value::tensor(other), Value::tensor(out)});
    return out;
  }
  static const Operator& op = detail::op("div.out_mode");
  detail::call(op, {Value::tensor(self), Value::tensor(other), detail::opt_string(rounding_mode),
                    Value::tensor(out)});
  return out;
}
Tensor Tensor::div(const Tensor& other, std::optional<std::string> rounding_mode) const {
  return plexus::div(*this, other, std::move(rounding_mode));
}
const Tensor& Tensor::div_(const Tensor& other, std::optional<std::string> rounding_mode) const {
  if (!rounding_mode) {
    static const Operator& op = detail::op("div_.Tensor");
    detail::call(op, {Value::tensor(*this), Value::tensor(other)});
    return *this;
  }
  static const Operator& op = detail::op("div_.Tensor_mode");
  detail::call(op, {Value::tensor(*this), Value::tensor(other), detail::opt_string(rounding_mode)});
  return *this;
}

Tensor pow(const Tensor& self, const Tensor& exponent) {
  static const Operator& op = detail::op("pow.Tensor_Tensor");
  return detail::call(op, {Value::tensor(self), Value::tensor(exponent)});
}
Tensor pow(const Tensor& self, Scalar exponent) {
  static const Operator& op = detail::op("pow.Tensor_Scalar");
  return detail::call(op, {Value::tensor(self), Value::scalar(exponent)});
}
const Tensor& pow_out(const Tensor& out, const Tensor& self, const Tensor& exponent) {
  static const Operator& op = detail::op("pow.Tensor_Tensor_out");
  detail::call(op, {Value::tensor(self), Value::tensor(exponent), Value::tensor(out)});
  return out;
}
const Tensor& pow_out(const Tensor& out, const Tensor& self, Scalar exponent) {
  static const Operator& op = detail::op("pow.Tensor_Scalar_out");
  detail::call(op, {Value::tensor(self), Value::scalar(exponent), Value::tensor(out)});
  return out;
}
Tensor Tensor::pow(const Tensor& exponent) const {
  return plexus::pow(*this, exponent);
}
Tensor Tensor::pow(Scalar exponent) const {
  return plexus::pow(*this, exponent);
}

Tensor maximum(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("maximum");
  return detail::call(op, {Value::tensor(self), Value::tensor(other)});
}
const Tensor& maximum_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("maximum.out");
  detail::call(op, {Value::tensor(self), Value::tensor(other), Value::tensor(out)});
  return out;
}
Tensor Tensor::maximum(const Tensor& other) const {
  return plexus::maximum(*this, other);
}

Tensor minimum(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("minimum");
  return detail::call(op, {Value::tensor(self), Value::tensor(other)});
}
const Tensor& minimum_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("minimum.out");
  detail::call(op, {Value::tensor(self), Value::tensor(other), Value::tensor(out)});
  return out;
}
Tensor Tensor::minimum(const Tensor& other) const {
  return plexus::minimum(*this, other);
}

Tensor operator+(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
Tensor operator+(const Tensor& a, Scalar b) {
  return add(a, b);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
Tensor operator-(const Tensor& a, Scalar b) {
  return sub(a, b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return mul(a, b);
}
Tensor operator*(const Tensor& a, Scalar b) {
  return mul(a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  return div(a, b);
}
Tensor operator/(const Tensor& a, Scalar b) {
  return div(a, b);
}
Tensor operator-(const Tensor& a) {
  return neg(a);
}

}  // namespace plexus
