// C++ API: conv2d (unbatched 3-D input gains a batch dim around the call).
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d");
  Tensor r =
      detail::call(op, {Value::tensor(detail::batched(input)), Value::tensor(weight), Value::tensor(bias),
                        Value::int_list(stride), Value::int_list(padding),
                        Value::int_list(dilation), Value::integer(groups)});
  return detail::unbatched(input) ? r.squeeze(0) : r;
}
const Tensor& conv2d_out(const Tensor& out, const Tensor& input, const Tensor& weight,
                         const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d.out");
  bool u = detail::unbatched(input);
  detail::call(op, {Value::tensor(detail::batched(input)), Value::tensor(weight), Value::tensor(bias),
                    Value::int_list(stride), Value::int_list(padding), Value::int_list(dilation),
                    Value::integer(groups), Value::tensor(u ? detail::batched(out) : out)});
  return out;
}
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             IntArrayRef input_size, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d_backward_input");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(weight),
                           Value::int_list(input_size), Value::int_list(stride),
                           Value::int_list(padding), Value::int_list(dilation),
                           Value::integer(groups)});
}
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              IntArrayRef weight_size, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d_backward_weight");
  return detail::call(op, {Value::tensor(grad_output), Value::tensor(input),
                           Value::int_list(weight_size), Value::int_list(stride),
                           Value::int_list(padding), Value::int_list(dilation),
                           Value::integer(groups)});
}
}  // namespace plexus
