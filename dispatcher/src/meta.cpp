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

const Tensor& MetaContext::tensor(size_t i) const {
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

void check_dtype(MetaContext& ctx, size_t arg, DType t, DTypeSet allowed) {
  if (!allowed.contains(t))
    fail_arg(ctx.name(arg), "{} does not take {}; it takes {}", ctx.op().name(), dtype_name(t),
             allowed.str());
}

void prepare_input(MetaContext& ctx, size_t i, DType dtype) {
  const Tensor& t = ctx.tensor(i);
  if (t.dtype() != dtype) ctx.set_tensor(i, t.to(dtype));
}

OutputSpec elementwise_meta(MetaContext& ctx, std::initializer_list<size_t> tensor_args,
                            ResultRule rule) {
  std::array<Operand, 4> ops{};
  size_t n = 0;
  Shape shape;
  for (size_t i : tensor_args) {
    const Tensor& t = ctx.tensor(i);
    OperandKind kind = t.impl()->wrapped_number ? OperandKind::Scalar
                       : t.dim() == 0           ? OperandKind::ZeroDimTensor
                                                : OperandKind::Tensor;
    ops[n++] = {t.dtype(), kind};
    try {
      shape = broadcast_shapes(shape, t.sizes());
    } catch (const Error& e) {
      throw e.with_context({"", ctx.name(i), "", ""});
    }
  }
  DType common = result_type(std::span(ops.data(), n));
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
