// C++ API: reductions.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

Tensor sum(const Tensor& self, std::optional<std::vector<int64_t>> dim, bool keepdim,
           std::optional<DType> dtype) {
  static const Operator& op = detail::op("sum.dim_IntList");
  return detail::call(op, {Value::tensor(self), detail::opt_int_list(dim), Value::boolean(keepdim),
                           detail::opt_dtype(dtype)});
}
const Tensor& sum_out(const Tensor& out, const Tensor& self,
                      std::optional<std::vector<int64_t>> dim, bool keepdim,
                      std::optional<DType> dtype) {
  static const Operator& op = detail::op("sum.IntList_out");
  detail::call(op, {Value::tensor(self), detail::opt_int_list(dim), Value::boolean(keepdim),
                    detail::opt_dtype(dtype), Value::tensor(out)});
  return out;
}

Tensor mean(const Tensor& self, std::optional<std::vector<int64_t>> dim, bool keepdim,
            std::optional<DType> dtype) {
  static const Operator& op = detail::op("mean.dim");
  return detail::call(op, {Value::tensor(self), detail::opt_int_list(dim), Value::boolean(keepdim),
                           detail::opt_dtype(dtype)});
}
const Tensor& mean_out(const Tensor& out, const Tensor& self,
                       std::optional<std::vector<int64_t>> dim, bool keepdim,
                       std::optional<DType> dtype) {
  static const Operator& op = detail::op("mean.out");
  detail::call(op, {Value::tensor(self), detail::opt_int_list(dim), Value::boolean(keepdim),
                    detail::opt_dtype(dtype), Value::tensor(out)});
  return out;
}

Tensor amax(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const Operator& op = detail::op("amax");
  return detail::call(op, {Value::tensor(self), Value::int_list(dim), Value::boolean(keepdim)});
}
const Tensor& amax_out(const Tensor& out, const Tensor& self, std::vector<int64_t> dim,
                       bool keepdim) {
  static const Operator& op = detail::op("amax.out");
  detail::call(
      op, {Value::tensor(self), Value::int_list(dim), Value::boolean(keepdim), Value::tensor(out)});
  return out;
}

Tensor amin(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const Operator& op = detail::op("amin");
  return detail::call(op, {Value::tensor(self), Value::int_list(dim), Value::boolean(keepdim)});
}
const Tensor& amin_out(const Tensor& out, const Tensor& self, std::vector<int64_t> dim,
                       bool keepdim) {
  static const Operator& op = detail::op("amin.out");
  detail::call(
      op, {Value::tensor(self), Value::int_list(dim), Value::boolean(keepdim), Value::tensor(out)});
  return out;
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const Operator& op = detail::op("argmax");
  return detail::call(op, {Value::tensor(self), detail::opt_int(dim), Value::boolean(keepdim)});
}
const Tensor& argmax_out(const Tensor& out, const Tensor& self, std::optional<int64_t> dim,
                         bool keepdim) {
  static const Operator& op = detail::op("argmax.out");
  detail::call(
      op, {Value::tensor(self), detail::opt_int(dim), Value::boolean(keepdim), Value::tensor(out)});
  return out;
}

Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const Operator& op = detail::op("argmin");
  return detail::call(op, {Value::tensor(self), detail::opt_int(dim), Value::boolean(keepdim)});
}
const Tensor& argmin_out(const Tensor& out, const Tensor& self, std::optional<int64_t> dim,
                         bool keepdim) {
  static const Operator& op = detail::op("argmin.out");
  detail::call(
      op, {Value::tensor(self), detail::opt_int(dim), Value::boolean(keepdim), Value::tensor(out)});
  return out;
}

Tensor Tensor::sum(std::optional<std::vector<int64_t>> dim, bool keepdim) const {
  return plexus::sum(*this, std::move(dim), keepdim);
}
Tensor Tensor::mean(std::optional<std::vector<int64_t>> dim, bool keepdim) const {
  return plexus::mean(*this, std::move(dim), keepdim);
}
Tensor Tensor::amax(std::vector<int64_t> dim, bool keepdim) const {
  return plexus::amax(*this, std::move(dim), keepdim);
}
Tensor Tensor::amin(std::vector<int64_t> dim, bool keepdim) const {
  return plexus::amin(*this, std::move(dim), keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return plexus::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return plexus::argmin(*this, dim, keepdim);
}

}  // namespace plexus
