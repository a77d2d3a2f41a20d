// C++ API: layer_norm.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  static const Operator& op = detail::op("layer_norm");
  return detail::call(op, {Value::tensor(input), Value::int_list(normalized_shape),
                           Value::tensor(weight), Value::tensor(bias), Value::real(eps)});
}
const Tensor& layer_norm_out(const Tensor& out, const Tensor& input, IntArrayRef normalized_shape,
                             const Tensor& weight, const Tensor& bias, double eps) {
  static const Operator& op = detail::op("layer_norm.out");
  detail::call(op, {Value::tensor(input), Value::int_list(normalized_shape), Value::tensor(weight),
                    Value::tensor(bias), Value::real(eps), Value::tensor(out)});
  return out;
}
Tensor layer_norm_backward(const Tensor& grad_output, const Tensor& input,
                           IntArrayRef normalized_shape, const Tensor& weight, double eps) {
  static const Operator& op = detail::op("layer_norm_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(input),
                           Value::int_list(normalized_shape), Value::tensor(weight),
                           Value::real(eps)});
}
}  // namespace plexus
