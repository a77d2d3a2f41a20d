// C++ API: cat.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor cat(std::span<const Tensor> tensors, int64_t dim) {
  static const Operator& op = detail::op("cat");
  return detail::call(op, {Value::tensor_list(tensors), Value::integer(dim)});
}
Tensor cat(std::initializer_list<Tensor> tensors, int64_t dim) {
  return cat(std::span<const Tensor>(tensors.begin(), tensors.size()), dim);
}

const Tensor& cat_out(const Tensor& out, std::span<const Tensor> tensors, int64_t dim) {
  static const Operator& op = detail::op("cat.out");
  detail::call(op, {Value::tensor_list(tensors), Value::integer(dim), Value::tensor(out)});
  return out;
}
const Tensor& cat_out(const Tensor& out, std::initializer_list<Tensor> tensors, int64_t dim) {
  return cat_out(out, std::span<const Tensor>(tensors.begin(), tensors.size()), dim);
}

}  // namespace plexus
