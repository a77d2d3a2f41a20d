#include "plexus/meta.h"

#include <fmt/format.h>

namespace plexus {

namespace {
// Re-raises an accessor's error with the argument's name.
template <typename F>
auto named(const MetaContext& ctx, size_t i, F&& f) -> decltype(f()) {
  PLEXUS_CHECK(i < ctx.size(), ErrorCode::Internal, "meta of {} reads argument {} of {}",
               ctx.op().name(), i, ctx.size());
  try {
    return f();
  } catch (const Error& e) {
    throw e.with_context({"", ctx.name(i), "", ""});
  }
}
}  // namespace

const Tensor& MetaContext::tensor_slow(size_t i) const {
  return named(*this, i, [&]() -> const Tensor& { return args_[i].to_tensor(); });
}
const Tensor* MetaContext::optional_tensor(size_t i) const {
  if (args_[i].is_none()) return nullptr;
  return &tensor(i);
}
std::span<const Tensor> MetaContext::tensor_list(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_tensor_list(); });
}
Scalar MetaContext::scalar(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_scalar(); });
}
std::optional<Scalar> MetaContext::optional_scalar(size_t i) const {
  if (args_[i].is_none()) return std::nullopt;
  return scalar(i);
}
int64_t MetaContext::integer(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_int(); });
}
std::optional<int64_t> MetaContext::optional_integer(size_t i) const {
  if (args_[i].is_none()) return std::nullopt;
  return integer(i);
}
IntArrayRef MetaContext::int_list(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_int_list(); });
}
std::optional<IntArrayRef> MetaContext::optional_int_list(size_t i) const {
  if (args_[i].is_none()) return std::nullopt;
  return int_list(i);
}
double MetaContext::real(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_double(); });
}
bool MetaContext::boolean(size_t i) const {
  return named(*this, i, [&] { return args_[i].to_bool(); });
}
std::optional<std::string_view> MetaContext::optional_string(size_t i) const {
  if (args_[i].is_none()) return std::nullopt;
  return named(*this, i, [&] { return args_[i].to_string(); });
}
std::optional<DType> MetaContext::optional_dtype(size_t i) const {
  if (args_[i].is_none()) return std::nullopt;
  return named(*this, i, [&] { return args_[i].to_dtype(); });
}

void MetaContext::set_tensor(size_t i, Tensor t) {
  PLEXUS_CHECK(nkept_ < kept_.size(), ErrorCode::Internal,
               "meta of {} replaced more than {} tensors", op_.name(), kept_.size());
  kept_[nkept_] = std::move(t);
  args_[i] = Value::tensor(kept_[nkept_++]);
}

void MetaContext::set_tensor_list(size_t i, std::vector<Tensor> ts) {
  kept_lists_.push_back(std::move(ts));
  args_[i] = Value::tensor_list(kept_lists_.back());
}

void MetaContext::set_int_list(size_t i, std::vector<int64_t> l) {
  // Moving a vector keeps its buffer, so earlier lists stay where args_ points.
  kept_int_lists_.push_back(std::move(l));
  args_[i] = Value::int_list(kept_int_lists_.back());
}

void MetaContext::set_value(size_t i, Value v) {
  using T = Value::Tag;
  PLEXUS_CHECK(v.tag() != T::Tensor && v.tag() != T::TensorList && v.tag() != T::IntList &&
                   v.tag() != T::String,
               ErrorCode::Internal, "meta of {}: set_value needs an owned value, got a {}",
               op_.name(), Value::tag_name(v.tag()));
  args_[i] = v;
}

void check_dtype(MetaContext& ctx, size_t arg, DType t, DTypeSet allowed) {
  if (!allowed.contains(t))
    fail_arg(ctx.name(arg), "{} does not take {}; it takes {}", ctx.op().name(), dtype_name(t),
             allowed.str());
}

void check_scalar_fits(MetaContext& ctx, size_t i, DType compute_dtype) {
  Scalar v = ctx.scalar(i);
  if (v.is_bool() && compute_dtype != DType::Bool)
    fail_arg(ctx.name(i), "may be a bool only for bool inputs, got {} for {} inputs", v.str(),
             dtype_name(compute_dtype));
  if (!is_floating(compute_dtype) && v.is_floating())
    fail_arg(ctx.name(i), "must be an integer for {} inputs, got {}", dtype_name(compute_dtype),
             v.str());
}

void prepare_input(MetaContext& ctx, size_t i, DType dtype) {
  const Tensor& t = ctx.tensor(i);
  if (t.dtype() != dtype) {
    bool wrapped = t.impl()->wrapped_number;
    Tensor c = t.to(dtype);
    c.impl()->wrapped_number = wrapped;
    ctx.set_tensor(i, std::move(c));
  }
  if (ctx.tensor(i).device() != ctx.device()) move_to_call_device(ctx, i);
}

void move_to_call_device(MetaContext& ctx, size_t i) {
  const Tensor& t = ctx.tensor(i);
  Tensor m = t.to(ctx.device());
  m.impl()->wrapped_number = t.impl()->wrapped_number;
  ctx.set_tensor(i, std::move(m));
}

OutputSpec elementwise_meta(MetaContext& ctx, std::initializer_list<size_t> tensor_args,
                            ResultRule rule) {
  return elementwise_meta_with_scalars(ctx, tensor_args, {}, rule);
}

OutputSpec elementwise_meta_with_scalars(MetaContext& ctx,
                                         std::initializer_list<size_t> tensor_args,
                                         std::initializer_list<size_t> scalar_args,
                                         ResultRule rule) {
  std::array<Operand, 8> ops{};
  PLEXUS_CHECK(tensor_args.size() + scalar_args.size() <= ops.size(), ErrorCode::Internal,
               "meta of {} promotes more than {} operands", ctx.op().name(), ops.size());
  size_t n = 0;
  Shape shape;
  for (size_t i : tensor_args) {
    const Tensor& t = ctx.tensor(i);
    OperandKind kind = t.impl()->wrapped_number ? OperandKind::Scalar
                       : t.dim() == 0           ? OperandKind::ZeroDimTensor
                                                : OperandKind::Tensor;
    ops[n++] = {t.dtype(), kind};
    if (n == 1) {
      shape.assign(t.sizes().begin(), t.sizes().end());
      continue;
    }
    if (IntArrayRef(shape) == t.sizes()) continue;
    try {
      shape = broadcast_shapes(shape, t.sizes());
    } catch (const Error& e) {
      throw e.with_context({"", ctx.name(i), "", ""});
    }
  }
  for (size_t i : scalar_args)
    if (std::optional<Scalar> s = ctx.optional_scalar(i))
      ops[n++] = {s->dtype(), OperandKind::Scalar};
  bool plain = true;  // all dimensioned tensors of one dtype: the common case, no promotion
  for (size_t k = 0; k < n; ++k)
    plain = plain && ops[k].kind == OperandKind::Tensor && ops[k].dtype == ops[0].dtype;
  DType common = plain ? ops[0].dtype : result_type(std::span(ops.data(), n));
  if (rule == ResultRule::IntToFloat && !is_floating(common)) common = DType::F32;
  check_dtype(ctx, *tensor_args.begin(), common, ctx.op().catalog_dtypes());
  for (size_t i : tensor_args) {
    prepare_input(ctx, i, common);
    const Tensor& t = ctx.tensor(i);
    if (!std::equal(t.sizes().begin(), t.sizes().end(), shape.begin(), shape.end()))
      ctx.set_tensor(i, t.expand(shape));
  }
  return {shape, rule == ResultRule::Bool ? DType::Bool : common, common};
}

}  // namespace plexus
