// Binary arithmetic: add, sub, mul, div, pow, maximum, minimum.
#include "catalog/catalog.h"

namespace plexus {
namespace {

// alpha must fit the compute dtype: no float alpha for integer inputs, no
// non-bool alpha for bool inputs (PyTorch's alpha_check).
void check_alpha(MetaContext& ctx, size_t i, DType common) {
  Scalar alpha = ctx.scalar(i);
  if (common == DType::Bool && !alpha.is_bool())
    fail_arg(ctx.name(i), "must be a bool for bool inputs, got {}", alpha.str());
  if (!is_floating(common) && alpha.is_floating())
    fail_arg(ctx.name(i), "must be an integer for {} inputs, got {}", dtype_name(common),
             alpha.str());
}

OutputSpec add_meta(MetaContext& ctx) {
  OutputSpec spec = elementwise_meta(ctx, {0, 1});
  check_alpha(ctx, 2, spec.compute_dtype);
  return spec;
}

}  // namespace

void define_binary_ops(Dispatcher& d) {
  d.define({.functional = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            .inplace =
                "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            .out = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = add_meta,
            .dtypes = kAllTypes,
            .elementwise = true});
}

}  // namespace plexus
