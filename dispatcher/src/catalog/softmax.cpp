// softmax and log_softmax: one kernel each.
//
// What the kernels receive: self in the compute dtype; dim wrapped to [0, ndim)
// (0 for a 0-d self, which counts as one element).
#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// softmax.int / log_softmax.int: floating only; dtype, when given, is both the
// compute and the result dtype.
OutputSpec softmax_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  std::optional<DType> given = ctx.optional_dtype(2);
  DType t = given.value_or(self.dtype());
  PLEXUS_CHECK_ARG(is_floating(t), ctx.name(given ? 2 : 0),
                   "{} needs a floating tensor or a floating dtype, got {}; pass "
                   "dtype=float32 or convert the input",
                   ctx.op().schema().name, dtype_name(t));
  check_dtype(ctx, given ? 2 : 0, t, ctx.op().catalog_dtypes());
  int64_t dim = naming_argument(ctx.name(1), [&] { return wrap_dim(ctx.integer(1), self.dim()); });
  ctx.set_value(1, Value::integer(dim));
  prepare_input(ctx, 0, t);
  return {Shape(self.sizes().begin(), self.sizes().end()), t, t};
}

}  // namespace

void define_softmax_ops(Dispatcher& d) {
  d.define({.functional = "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            .out = "softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = softmax_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            .out = "log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = softmax_meta,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
