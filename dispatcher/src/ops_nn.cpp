// C++ API: neural-network ops.
#include "ops_util.h"
#include "plexus/ops.h"

namespace plexus {

namespace {
// Unbatched [C, H, W] images gain a batch dim of 1 around conv2d and max_pool2d.
bool unbatched(const Tensor& t) {
  return t.defined() && t.dim() == 3;
}
Tensor batched(const Tensor& t) {
  return unbatched(t) ? t.unsqueeze(0) : t;
}
}  // namespace

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

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d");
  Tensor r =
      detail::call(op, {Value::tensor(batched(input)), Value::tensor(weight), Value::tensor(bias),
                        Value::int_list(stride), Value::int_list(padding),
                        Value::int_list(dilation), Value::integer(groups)});
  return unbatched(input) ? r.squeeze(0) : r;
}
const Tensor& conv2d_out(const Tensor& out, const Tensor& input, const Tensor& weight,
                         const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, int64_t groups) {
  static const Operator& op = detail::op("conv2d.out");
  bool u = unbatched(input);
  detail::call(op, {Value::tensor(batched(input)), Value::tensor(weight), Value::tensor(bias),
                    Value::int_list(stride), Value::int_list(padding), Value::int_list(dilation),
                    Value::integer(groups), Value::tensor(u ? batched(out) : out)});
  return out;
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  static const Operator& op = detail::op("max_pool2d");
  Tensor r = detail::call(
      op, {Value::tensor(batched(self)), Value::int_list(kernel_size), Value::int_list(stride),
           Value::int_list(padding), Value::int_list(dilation), Value::boolean(ceil_mode)});
  return unbatched(self) ? r.squeeze(0) : r;
}
const Tensor& max_pool2d_out(const Tensor& out, const Tensor& self, IntArrayRef kernel_size,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             bool ceil_mode) {
  static const Operator& op = detail::op("max_pool2d.out");
  bool u = unbatched(self);
  detail::call(op, {Value::tensor(batched(self)), Value::int_list(kernel_size),
                    Value::int_list(stride), Value::int_list(padding), Value::int_list(dilation),
                    Value::boolean(ceil_mode), Value::tensor(u ? batched(out) : out)});
  return out;
}

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

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const Operator& op = detail::op("mse_loss");
  return detail::call(op, {Value::tensor(self), Value::tensor(target), Value::integer(reduction)});
}

Tensor Tensor::softmax(int64_t dim) const {
  return plexus::softmax(*this, dim);
}
Tensor Tensor::log_softmax(int64_t dim) const {
  return plexus::log_softmax(*this, dim);
}

}  // namespace plexus
