// Shape-building ops: cat.
//
// What the cat kernel receives: the tensors that contribute (legacy 1-D empty
// tensors dropped; at least one remains), each in the compute dtype with sizes
// equal to out's except in dim; dim wrapped to [0, ndim).
#include "catalog/catalog.h"

namespace plexus {
namespace {

// PyTorch skips 1-D tensors of size 0 in cat whatever the other shapes.
bool legacy_empty(const Tensor& t) {
  return t.dim() == 1 && t.size(0) == 0;
}

// Checks tensors[i] fits the reference tensors[r] except in dim.
void check_cat_shape(MetaContext& ctx, std::span<const Tensor> ts, size_t i, size_t r,
                     int64_t dim) {
  const Tensor& t = ts[i];
  const Tensor& ref = ts[r];
  bool fits = t.dim() == ref.dim();
  for (int64_t d = 0; fits && d < t.dim(); ++d) fits = d == dim || t.size(d) == ref.size(d);
  PLEXUS_CHECK_ARG(fits, ctx.name(0),
                   "tensors[{}] of shape {} does not fit tensors[{}] of shape {}: cat along dim "
                   "{} needs the same number of dims and equal sizes in every other dim",
                   i, shape_str(t.sizes()), r, shape_str(ref.sizes()), dim);
}

// cat(tensors, dim): the tensors joined along dim, in their promoted dtype.
OutputSpec cat_meta(MetaContext& ctx) {
  std::span<const Tensor> ts = ctx.tensor_list(0);
  PLEXUS_CHECK_ARG(!ts.empty(), ctx.name(0), "cat needs at least one tensor, got an empty list");
  std::vector<Operand> operands;
  std::optional<size_t> ref;  // the first tensor that is not a legacy empty one
  for (size_t i = 0; i < ts.size(); ++i) {
    PLEXUS_CHECK_ARG(ts[i].defined(), ctx.name(0), "tensors[{}] is undefined", i);
    PLEXUS_CHECK_ARG(ts[i].dim() > 0, ctx.name(0),
                     "tensors[{}] is 0-d; cat joins tensors with at least one dim (unsqueeze it)",
                     i);
    operands.push_back({ts[i].dtype(), OperandKind::Tensor});
    if (!ref && !legacy_empty(ts[i])) ref = i;
  }
  DType t = result_type(operands);
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  auto converted = [t](const Tensor& x) { return x.dtype() == t ? x : x.to(t); };
  if (!ref) {  // only legacy empty tensors: the result is one of them
    ctx.set_tensor_list(0, {converted(ts[0])});
    return {{0}, t, t};
  }
  int64_t dim =
      naming_argument(ctx.name(1), [&] { return wrap_dim(ctx.integer(1), ts[*ref].dim()); });
  Shape out(ts[*ref].sizes().begin(), ts[*ref].sizes().end());
  out[dim] = 0;
  std::vector<Tensor> kept;
  for (size_t i = *ref; i < ts.size(); ++i) {
    if (legacy_empty(ts[i])) continue;
    check_cat_shape(ctx, ts, i, *ref, dim);
    out[dim] += ts[i].size(dim);
    kept.push_back(converted(ts[i]));
  }
  ctx.set_tensor_list(0, std::move(kept));
  ctx.set_value(1, Value::integer(dim));
  return {out, t, t};
}

}  // namespace

void define_shape_ops(Dispatcher& d) {
  d.define({.functional = "cat(Tensor[] tensors, int dim=0) -> Tensor",
            .out = "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = cat_meta,
            .dtypes = kAllTypes});
}

}  // namespace plexus
