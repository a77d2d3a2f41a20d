// C++ API: matrix products.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor mm(const Tensor& self, const Tensor& mat2) {
  static const Operator& op = detail::op("mm");
  return detail::call(op, {Value::tensor(self), Value::tensor(mat2)});
}
const Tensor& mm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  static const Operator& op = detail::op("mm.out");
  detail::call(op, {Value::tensor(self), Value::tensor(mat2), Value::tensor(out)});
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  static const Operator& op = detail::op("bmm");
  return detail::call(op, {Value::tensor(self), Value::tensor(mat2)});
}
const Tensor& bmm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  static const Operator& op = detail::op("bmm.out");
  detail::call(op, {Value::tensor(self), Value::tensor(mat2), Value::tensor(out)});
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta,
             Scalar alpha) {
  static const Operator& op = detail::op("addmm");
  return detail::call(op, {Value::tensor(self), Value::tensor(mat1), Value::tensor(mat2),
                           Value::scalar(beta), Value::scalar(alpha)});
}
const Tensor& addmm_out(const Tensor& out, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, Scalar beta, Scalar alpha) {
  static const Operator& op = detail::op("addmm.out");
  detail::call(op, {Value::tensor(self), Value::tensor(mat1), Value::tensor(mat2),
                    Value::scalar(beta), Value::scalar(alpha), Value::tensor(out)});
  return out;
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("matmul");
  return detail::call(op, {Value::tensor(self), Value::tensor(other)});
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  static const Operator& op = detail::op("linear");
  return detail::call(op, {Value::tensor(input), Value::tensor(weight), Value::tensor(bias)});
}

Tensor Tensor::mm(const Tensor& other) const {
  return plexus::mm(*this, other);
}
Tensor Tensor::bmm(const Tensor& other) const {
  return plexus::bmm(*this, other);
}
Tensor Tensor::matmul(const Tensor& other) const {
  return plexus::matmul(*this, other);
}

}  // namespace plexus
