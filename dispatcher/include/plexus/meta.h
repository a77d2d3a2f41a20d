// MetaContext and helpers for meta functions: argument access, type
// promotion, broadcasting, and rewriting inputs for the kernel.
#pragma once

#include <array>
#include <initializer_list>
#include <span>
#include <vector>

#include "plexus/op.h"
#include "plexus/value.h"

namespace plexus {

// The arguments of one call as a meta function sees them. Arguments are those
// of the functional/in-place schema (no `out`).
class MetaContext {
 public:
  MetaContext(const Operator& op, std::span<Value> args, Device device)
      : op_(op), args_(args), device_(device) {}
  const Operator& op() const { return op_; }
  Device device() const { return device_; }
  size_t size() const { return args_.size(); }
  const Value& arg(size_t i) const { return args_[i]; }
  // The argument's name in the schema, for error messages.
  const std::string& name(size_t i) const { return op_.schema().arguments[i].name; }
  // Typed access; throws InvalidArgument naming the argument on a wrong kind.
  const Tensor& tensor(size_t i) const {
    if (i < args_.size() && args_[i].is_tensor()) [[likely]] return args_[i].to_tensor();
    return tensor_slow(i);
  }
  const Tensor* optional_tensor(size_t i) const;  // nullptr for None
  std::span<const Tensor> tensor_list(size_t i) const;
  Scalar scalar(size_t i) const;
  std::optional<Scalar> optional_scalar(size_t i) const;
  int64_t integer(size_t i) const;
  std::optional<int64_t> optional_integer(size_t i) const;
  IntArrayRef int_list(size_t i) const;
  std::optional<IntArrayRef> optional_int_list(size_t i) const;
  double real(size_t i) const;
  bool boolean(size_t i) const;
  std::optional<std::string_view> optional_string(size_t i) const;
  std::optional<DType> optional_dtype(size_t i) const;

  // Hands the kernel `t` instead of tensor argument i (kept alive by the context).
  void set_tensor(size_t i, Tensor t);
  // Hands the kernel `ts` instead of tensor-list argument i.
  void set_tensor_list(size_t i, std::vector<Tensor> ts);
  // Hands the kernel `l` instead of int-list argument i (normalized dims, sizes).
  void set_int_list(size_t i, std::vector<int64_t> l);
  // Hands the kernel `v` instead of argument i; `v` must own its value (an int,
  // bool, float, dtype, device or None), not borrow a tensor, list or string.
  void set_value(size_t i, Value v);

 private:
  const Tensor& tensor_slow(size_t i) const;  // raises the error naming the argument
  const Operator& op_;
  std::span<Value> args_;
  Device device_;
  std::array<Tensor, 8> kept_;
  size_t nkept_ = 0;
  std::vector<std::vector<Tensor>> kept_lists_;
  std::vector<std::vector<int64_t>> kept_int_lists_;
};

// How an elementwise op turns its inputs' common dtype into its result dtype.
enum class ResultRule : uint8_t {
  Promote,       // the promoted dtype (add, mul, maximum)
  IntToFloat,    // promoted, integral and bool become float32 (div, exp, sigmoid)
  Bool,          // result is bool; inputs compute in the promoted dtype (eq, lt)
};

// The common case of elementwise ops: promotes the tensor arguments listed
// (0-d and wrapped numbers ranked as in PyTorch), broadcasts them, converts
// each to the compute dtype and expands it to the output shape, and checks the
// compute dtype is one the catalog lists. Returns the output spec.
OutputSpec elementwise_meta(MetaContext& ctx, std::initializer_list<size_t> tensor_args,
                            ResultRule rule = ResultRule::Promote);
// elementwise_meta for ops that also take Scalar arguments (pow.Tensor_Scalar,
// clamp, eq.Scalar): each scalar given (None is skipped) takes part in
// promotion as a wrapped number; the kernel receives the scalars as passed.
OutputSpec elementwise_meta_with_scalars(MetaContext& ctx,
                                         std::initializer_list<size_t> tensor_args,
                                         std::initializer_list<size_t> scalar_args,
                                         ResultRule rule = ResultRule::Promote);
// Converts tensor argument i to `dtype` (if needed) and moves a wrapped number
// or 0-d cpu tensor to the call's device, converting first, on the host. The
// one place inputs change dtype.
void prepare_input(MetaContext& ctx, size_t i, DType dtype);
// Moves tensor argument i (a 0-d cpu tensor) to the call's device, keeping its
// wrapped-number mark.
void move_to_call_device(MetaContext& ctx, size_t i);
// Throws InvalidArgument naming scalar argument i when it does not fit the
// compute dtype: a float for integer or bool inputs, a bool for non-bool
// inputs (PyTorch's alpha_check; alpha of add/sub, value of addcmul/addcdiv).
void check_scalar_fits(MetaContext& ctx, size_t i, DType compute_dtype);
// Throws InvalidArgument naming the op and argument when `t` is not in `allowed`.
void check_dtype(MetaContext& ctx, size_t arg, DType t, DTypeSet allowed);
// Returns f(); a plexus::Error it raises is re-raised naming `argument` (for
// shape helpers such as wrap_dim and broadcast_shapes, which know no names).
template <typename F>
decltype(auto) naming_argument(std::string_view argument, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw e.with_context({"", std::string(argument), "", ""});
  }
}

}  // namespace plexus
