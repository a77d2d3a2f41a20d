// layer_norm.
//
// What the kernel receives: input in the compute dtype; normalized_shape equal
// to input's trailing dims; weight and bias None or of shape normalized_shape in
// the compute dtype.
#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// An optional affine tensor of layer_norm: of shape normalized_shape, floating.
void prepare_affine(MetaContext& ctx, size_t i, IntArrayRef normalized, DType t) {
  const Tensor* p = ctx.optional_tensor(i);
  if (!p) return;
  PLEXUS_CHECK_ARG(p->sizes() == normalized, ctx.name(i),
                   "layer_norm expects {} of shape normalized_shape {}, got {}", ctx.name(i),
                   shape_str(normalized), shape_str(p->sizes()));
  PLEXUS_CHECK_ARG(is_floating(p->dtype()), ctx.name(i), "layer_norm expects a floating {}, got {}",
                   ctx.name(i), dtype_name(p->dtype()));
  prepare_input(ctx, i, t);
}

// layer_norm(input, normalized_shape, weight, bias, eps): normalizes over the
// trailing dims named by normalized_shape.
OutputSpec layer_norm_meta(MetaContext& ctx) {
  const Tensor& input = ctx.tensor(0);
  IntArrayRef ns = ctx.int_list(1);
  PLEXUS_CHECK_ARG(!ns.empty(), ctx.name(1), "layer_norm needs at least one normalized dim");
  int64_t n = static_cast<int64_t>(ns.size());
  bool trailing = input.dim() >= n && IntArrayRef(input.sizes().end() - n, ns.size()) == ns;
  PLEXUS_CHECK_ARG(trailing, ctx.name(1),
                   "normalized_shape {} must equal the last {} dims of input of shape {}",
                   shape_str(ns), n, shape_str(input.sizes()));
  DType t = input.dtype();
  PLEXUS_CHECK_ARG(is_floating(t), ctx.name(0), "layer_norm needs a floating input, got {}",
                   dtype_name(t));
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  prepare_affine(ctx, 2, ns, t);
  prepare_affine(ctx, 3, ns, t);
  return {Shape(input.sizes().begin(), input.sizes().end()), t, t};
}

}  // namespace

void define_layer_norm_ops(Dispatcher& d) {
  d.define({.functional = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                          "Tensor? bias=None, float eps=1e-05) -> Tensor",
            .out = "layer_norm.out(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = layer_norm_meta,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
