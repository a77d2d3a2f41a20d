// How the C++ API calls the dispatcher: the op is looked up once per call site.
#pragma once

#include "plexus/dispatcher.h"
#include "plexus/value.h"

namespace plexus::detail {

// Calls the op named `name` with these boxed arguments.
template <size_t N>
inline Tensor call(const Operator& op, const Value (&args)[N]) {
  return Dispatcher::get().call(op, std::span<const Value>(args, N));
}
inline const Operator& op(std::string_view name) { return Dispatcher::get().op(name); }

inline Value opt_scalar(const std::optional<Scalar>& s) {
  return s ? Value::scalar(*s) : Value();
}
inline Value opt_int(const std::optional<int64_t>& i) { return i ? Value::integer(*i) : Value(); }
inline Value opt_string(const std::optional<std::string>& s) {
  return s ? Value::string(*s) : Value();
}
inline Value opt_int_list(const std::optional<std::vector<int64_t>>& l) {
  return l ? Value::int_list(*l) : Value();
}
inline Value opt_dtype(const std::optional<DType>& t) { return t ? Value::dtype(*t) : Value(); }

// Unbatched [C, H, W] images gain a batch dim of 1 around conv2d and max_pool2d.
inline bool unbatched(const Tensor& t) { return t.defined() && t.dim() == 3; }
inline Tensor batched(const Tensor& t) { return unbatched(t) ? t.unsqueeze(0) : t; }

}  // namespace plexus::detail
