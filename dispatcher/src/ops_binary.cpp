// C++ API: binary arithmetic.
#include "ops_util.h"
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
  detail::call(op, {Value::tensor(self), Value::tensor(other), Value::scalar(alpha),
                    Value::tensor(out)});
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

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }

}  // namespace plexus
