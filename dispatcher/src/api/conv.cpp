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
}  // namespace plexus
