// C++ API: comparisons and where.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

Tensor binary(const Operator& op, const Tensor& self, const Value& other) {
  return detail::call(op, {Value::tensor(self), other});
}
const Tensor& binary_out(const Operator& op, const Tensor& out, const Tensor& self,
                         const Value& other) {
  detail::call(op, {Value::tensor(self), other, Value::tensor(out)});
  return out;
}

}  // namespace

Tensor eq(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("eq.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor eq(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("eq.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& eq_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("eq.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& eq_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("eq.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::eq(const Tensor& other) const {
  return plexus::eq(*this, other);
}

Tensor ne(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("ne.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor ne(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("ne.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& ne_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("ne.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& ne_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("ne.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::ne(const Tensor& other) const {
  return plexus::ne(*this, other);
}

Tensor lt(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("lt.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor lt(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("lt.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& lt_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("lt.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& lt_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("lt.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::lt(const Tensor& other) const {
  return plexus::lt(*this, other);
}

Tensor le(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("le.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor le(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("le.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& le_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("le.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& le_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("le.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::le(const Tensor& other) const {
  return plexus::le(*this, other);
}

Tensor gt(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("gt.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor gt(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("gt.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& gt_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("gt.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& gt_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("gt.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::gt(const Tensor& other) const {
  return plexus::gt(*this, other);
}

Tensor ge(const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("ge.Tensor");
  return binary(op, self, Value::tensor(other));
}
Tensor ge(const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("ge.Scalar");
  return binary(op, self, Value::scalar(other));
}
const Tensor& ge_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("ge.Tensor_out");
  return binary_out(op, out, self, Value::tensor(other));
}
const Tensor& ge_out(const Tensor& out, const Tensor& self, Scalar other) {
  static const Operator& op = detail::op("ge.Scalar_out");
  return binary_out(op, out, self, Value::scalar(other));
}
Tensor Tensor::ge(const Tensor& other) const {
  return plexus::ge(*this, other);
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  static const Operator& op = detail::op("where.self");
  return detail::call(op, {Value::tensor(condition), Value::tensor(self), Value::tensor(other)});
}
Tensor where(const Tensor& condition, Scalar self, const Tensor& other) {
  return where(condition, wrapped_scalar(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, Scalar other) {
  return where(condition, self, wrapped_scalar(other));
}
Tensor where(const Tensor& condition, Scalar self, Scalar other) {
  return where(condition, wrapped_scalar(self), wrapped_scalar(other));
}
const Tensor& where_out(const Tensor& out, const Tensor& condition, const Tensor& self,
                        const Tensor& other) {
  static const Operator& op = detail::op("where.self_out");
  detail::call(op, {Value::tensor(condition), Value::tensor(self), Value::tensor(other),
                    Value::tensor(out)});
  return out;
}

}  // namespace plexus
