// C++ API: copies, conversions and the Tensor methods that move data.
#include "api/call.h"
#include "plexus/dtype_dispatch.h"
#include "plexus/ops.h"

namespace plexus {

const Tensor& copy_(const Tensor& self, const Tensor& src) {
  static const Operator& op = detail::op("copy_");
  detail::call(op, {Value::tensor(self), Value::tensor(src), Value::boolean(false)});
  return self;
}

const Tensor& fill_(const Tensor& self, Scalar value) {
  static const Operator& op = detail::op("fill_.Scalar");
  detail::call(op, {Value::tensor(self), Value::scalar(value)});
  return self;
}

const Tensor& Tensor::copy_(const Tensor& src) const { return plexus::copy_(*this, src); }
const Tensor& Tensor::fill_(Scalar value) const { return plexus::fill_(*this, value); }
const Tensor& Tensor::zero_() const { return plexus::fill_(*this, 0); }

Tensor Tensor::to(DType dtype) const {
  static const Operator& op = detail::op("to.dtype");
  return detail::call(op, {Value::tensor(*this), Value::dtype(dtype), Value::boolean(false),
                           Value::boolean(false)});
}

Tensor Tensor::to(Device device, DType dtype) const {
  static const Operator& op = detail::op("to.device");
  return detail::call(op, {Value::tensor(*this), Value::device(device), Value::dtype(dtype),
                           Value::boolean(false), Value::boolean(false)});
}

Tensor Tensor::to(Device device) const { return to(device, dtype()); }

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), {dtype(), device()});
  out.copy_(*this);
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Scalar Tensor::item() const {
  PLEXUS_CHECK(defined() && numel() == 1, ErrorCode::InvalidArgument,
               "item(): expected a tensor with one element, got {}",
               defined() ? str() : std::string("an undefined tensor"));
  if (detail::g_host_read_hook) detail::g_host_read_hook(*this, "item()");
  Tensor host = to(Device());
  Scalar s;
  visit_dtype(host.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = *static_cast<const T*>(host.data_ptr());
    if constexpr (std::is_same_v<T, bool>) s = Scalar(v);
    else if constexpr (std::is_integral_v<T>) s = Scalar(static_cast<int64_t>(v));
    else if constexpr (std::is_same_v<T, double>) s = Scalar(v);  // exactly, not through float
    else s = Scalar(static_cast<double>(static_cast<float>(v)));  // float, float16, bfloat16
  });
  return s;
}

}  // namespace plexus
