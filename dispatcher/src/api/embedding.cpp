// C++ API: embedding.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq, bool sparse) {
  static const Operator& op = detail::op("embedding");
  return detail::call(op,
                      {Value::tensor(weight), Value::tensor(indices), Value::integer(padding_idx),
                       Value::boolean(scale_grad_by_freq), Value::boolean(sparse)});
}
const Tensor& embedding_out(const Tensor& out, const Tensor& weight, const Tensor& indices,
                            int64_t padding_idx, bool scale_grad_by_freq, bool sparse) {
  static const Operator& op = detail::op("embedding.out");
  detail::call(op,
               {Value::tensor(weight), Value::tensor(indices), Value::integer(padding_idx),
                Value::boolean(scale_grad_by_freq), Value::boolean(sparse), Value::tensor(out)});
  return out;
}
Tensor embedding_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx, bool scale_grad_by_freq) {
  static const Operator& op = detail::op("embedding_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(indices),
                           Value::integer(num_weights), Value::integer(padding_idx),
                           Value::boolean(scale_grad_by_freq)});
}
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  static const Operator& op = detail::op("index_select");
  return detail::call(op, {Value::tensor(self), Value::integer(dim), Value::tensor(index)});
}
const Tensor& index_select_out(const Tensor& out, const Tensor& self, int64_t dim,
                               const Tensor& index) {
  static const Operator& op = detail::op("index_select.out");
  detail::call(op, {Value::tensor(self), Value::integer(dim), Value::tensor(index),
                    Value::tensor(out)});
  return out;
}
}  // namespace plexus
