// Comparisons and selection: eq, ne, lt, le, gt, ge, where.
#include <fmt/format.h>

#include "catalog/catalog.h"

namespace plexus {
namespace {

// Bool result; both sides compute in their promoted dtype.
OutputSpec compare_tensor_meta(MetaContext& ctx) {
  return elementwise_meta(ctx, {0, 1}, ResultRule::Bool);
}
OutputSpec compare_scalar_meta(MetaContext& ctx) {
  return elementwise_meta_with_scalars(ctx, {0}, {1}, ResultRule::Bool);
}

// where(condition, self, other): condition stays bool; self and other
// promote; all three broadcast together.
OutputSpec where_meta(MetaContext& ctx) {
  const Tensor& condition = ctx.tensor(0);
  if (condition.dtype() != DType::Bool)
    fail_arg(ctx.name(0), "must be a bool tensor, got {}; compare it first (e.g. x != 0)",
             dtype_name(condition.dtype()));
  OutputSpec spec = elementwise_meta(ctx, {1, 2});
  try {
    spec.sizes = broadcast_shapes(condition.sizes(), spec.sizes);
  } catch (const Error& e) {
    throw e.with_context({"", ctx.name(0), "", ""});
  }
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = ctx.tensor(i);
    if (!std::equal(t.sizes().begin(), t.sizes().end(), spec.sizes.begin(), spec.sizes.end()))
      ctx.set_tensor(i, t.expand(spec.sizes));
  }
  return spec;
}

}  // namespace

void define_compare_ops(Dispatcher& d) {
  for (std::string_view name : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    std::string tensor = fmt::format("{}.Tensor(Tensor self, Tensor other) -> Tensor", name);
    std::string tensor_out = fmt::format(
        "{}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", name);
    std::string scalar = fmt::format("{}.Scalar(Tensor self, Scalar other) -> Tensor", name);
    std::string scalar_out = fmt::format(
        "{}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", name);
    d.define({.functional = tensor,
              .out = tensor_out,
              .meta = compare_tensor_meta,
              .dtypes = kAllTypes,
              .elementwise = true});
    d.define({.functional = scalar,
              .out = scalar_out,
              .meta = compare_scalar_meta,
              .dtypes = kAllTypes,
              .elementwise = true});
  }
  d.define({.functional = "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
            .out = "where.self_out(Tensor condition, Tensor self, Tensor other, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = where_meta,
            .dtypes = kAllTypes,
            .elementwise = true});
}

}  // namespace plexus
