// C++ API: softmax and log_softmax.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  static const Operator& op = detail::op("softmax.int");
  return detail::call(op, {Value::tensor(self), Value::integer(dim), detail::opt_dtype(dtype)});
}
const Tensor& softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<DType> dtype) {
  static const Operator& op = detail::op("softmax.int_out");
  detail::call(
      op, {Value::tensor(self), Value::integer(dim), detail::opt_dtype(dtype), Value::tensor(out)});
  return out;
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  static const Operator& op = detail::op("log_softmax.int");
  return detail::call(op, {Value::tensor(self), Value::integer(dim), detail::opt_dtype(dtype)});
}
const Tensor& log_softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                              std::optional<DType> dtype) {
  static const Operator& op = detail::op("log_softmax.int_out");
  detail::call(
      op, {Value::tensor(self), Value::integer(dim), detail::opt_dtype(dtype), Value::tensor(out)});
  return out;
}
Tensor Tensor::softmax(int64_t dim) const {
  return plexus::softmax(*this, dim);
}
Tensor Tensor::log_softmax(int64_t dim) const {
  return plexus::log_softmax(*this, dim);
}
Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim) {
  static const Operator& op = detail::op("softmax_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(output), Value::integer(dim)});
}
Tensor log_softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim) {
  static const Operator& op = detail::op("log_softmax_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(output), Value::integer(dim)});
}
}  // namespace plexus
