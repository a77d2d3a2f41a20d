// C++ API: losses (composites of catalog ops).
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const Operator& op = detail::op("mse_loss");
  return detail::call(op, {Value::tensor(self), Value::tensor(target), Value::integer(reduction)});
}
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction) {
  static const Operator& op = detail::op("mse_loss_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(self), Value::tensor(target),
                           Value::integer(reduction)});
}
}  // namespace plexus
