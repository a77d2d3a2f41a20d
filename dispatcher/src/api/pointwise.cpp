// C++ API: lerp, addcmul, addcdiv.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor lerp(const Tensor& self, const Tensor& end, Scalar weight) {
  static const Operator& op = detail::op("lerp.Scalar");
  return detail::call(op, {Value::tensor(self), Value::tensor(end), Value::scalar(weight)});
}
const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end, Scalar weight) {
  static const Operator& op = detail::op("lerp.Scalar_out");
  detail::call(
      op, {Value::tensor(self), Value::tensor(end), Value::scalar(weight), Value::tensor(out)});
  return out;
}
const Tensor& Tensor::lerp_(const Tensor& end, Scalar weight) const {
  static const Operator& op = detail::op("lerp_.Scalar");
  detail::call(op, {Value::tensor(*this), Value::tensor(end), Value::scalar(weight)});
  return *this;
}

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const Operator& op = detail::op("addcmul");
  return detail::call(op, {Value::tensor(self), Value::tensor(tensor1), Value::tensor(tensor2),
                           Value::scalar(value)});
}
const Tensor& addcmul_out(const Tensor& out, const Tensor& self, const Tensor& tensor1,
                          const Tensor& tensor2, Scalar value) {
  static const Operator& op = detail::op("addcmul.out");
  detail::call(op, {Value::tensor(self), Value::tensor(tensor1), Value::tensor(tensor2),
                    Value::scalar(value), Value::tensor(out)});
  return out;
}
const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, Scalar value) const {
  static const Operator& op = detail::op("addcmul_");
  detail::call(op,
               {Value::tensor(*this), Value::tensor(t1), Value::tensor(t2), Value::scalar(value)});
  return *this;
}

Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const Operator& op = detail::op("addcdiv");
  return detail::call(op, {Value::tensor(self), Value::tensor(tensor1), Value::tensor(tensor2),
                           Value::scalar(value)});
}
const Tensor& addcdiv_out(const Tensor& out, const Tensor& self, const Tensor& tensor1,
                          const Tensor& tensor2, Scalar value) {
  static const Operator& op = detail::op("addcdiv.out");
  detail::call(op, {Value::tensor(self), Value::tensor(tensor1), Value::tensor(tensor2),
                    Value::scalar(value), Value::tensor(out)});
  return out;
}
const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value) const {
  static const Operator& op = detail::op("addcdiv_");
  detail::call(op,
               {Value::tensor(*this), Value::tensor(t1), Value::tensor(t2), Value::scalar(value)});
  return *this;
}

}  // namespace plexus
