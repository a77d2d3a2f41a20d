// C++ API: max_pool2d (unbatched 3-D input gains a batch dim around the call).
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  static const Operator& op = detail::op("max_pool2d");
  Tensor r = detail::call(
      op, {Value::tensor(detail::batched(self)), Value::int_list(kernel_size), Value::int_list(stride),
           Value::int_list(padding), Value::int_list(dilation), Value::boolean(ceil_mode)});
  return detail::unbatched(self) ? r.squeeze(0) : r;
}
const Tensor& max_pool2d_out(const Tensor& out, const Tensor& self, IntArrayRef kernel_size,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             bool ceil_mode) {
  static const Operator& op = detail::op("max_pool2d.out");
  bool u = detail::unbatched(self);
  detail::call(op, {Value::tensor(detail::batched(self)), Value::int_list(kernel_size),
                    Value::int_list(stride), Value::int_list(padding), Value::int_list(dilation),
                    Value::boolean(ceil_mode), Value::tensor(u ? detail::batched(out) : out)});
  return out;
}
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool ceil_mode) {
  static const Operator& op = detail::op("max_pool2d_backward");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(self),
                           Value::int_list(kernel_size), Value::int_list(stride),
                           Value::int_list(padding), Value::int_list(dilation),
                           Value::boolean(ceil_mode)});
}
}  // namespace plexus
