// softmax and log_softmax: one kernel each; and their gradients.
//
// What the kernels receive: self in the compute dtype; dim wrapped to [0, ndim)
// (0 for a 0-d self, which counts as one element).
//
// softmax_backward(grad_output, output, dim) and log_softmax_backward(...)
// are the gradients with respect to the forward's input, given its result
// `output`: y (g - sum(g y)) and g - exp(y) sum(g), the sums along dim.
// Their kernels receive grad_output and output of one shape and one floating
// dtype, and dim wrapped. Composite defaults are written in catalog ops.
#include <fmt/format.h>

#include <utility>

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

// softmax_backward / log_softmax_backward(grad_output, output, dim)
OutputSpec softmax_backward_meta(MetaContext& ctx) {
  const Tensor& grad = ctx.tensor(0);
  const Tensor& y = ctx.tensor(1);
  check_dtype(ctx, 1, y.dtype(), ctx.op().catalog_dtypes());
  PLEXUS_CHECK_ARG(grad.dtype() == y.dtype(), ctx.name(0), "expected output's dtype {}, got {}",
                   dtype_name(y.dtype()), dtype_name(grad.dtype()));
  PLEXUS_CHECK_ARG(grad.sizes() == y.sizes(), ctx.name(0),
                   "expected output's shape {}, got {}", shape_str(y.sizes()),
                   shape_str(grad.sizes()));
  int64_t dim = naming_argument(ctx.name(2), [&] { return wrap_dim(ctx.integer(2), y.dim()); });
  ctx.set_value(2, Value::integer(dim));
  return {Shape(y.sizes().begin(), y.sizes().end()), y.dtype(), y.dtype()};
}

// The sum along dim (kept), of a 0-d tensor itself.
Tensor row_sum(const Tensor& t, int64_t dim) {
  return t.dim() == 0 ? t : sum(t, std::vector<int64_t>{dim}, true);
}

// softmax_backward.out: g y - y sum(g y), in float32 for float16/bfloat16.
void softmax_backward_composite(void*, KernelCall& call) {
  const DType t = accumulate_dtype(call.args[1].to_tensor().dtype());
  Tensor g = call.args[0].to_tensor().to(t), y = call.args[1].to_tensor().to(t);
  Tensor gy = g * y;
  call.args[3].to_tensor().copy_(gy - y * row_sum(gy, call.args[2].to_int()));
}

// log_softmax_backward.out: g - exp(y) sum(g), in float32 for float16/bfloat16.
void log_softmax_backward_composite(void*, KernelCall& call) {
  const DType t = accumulate_dtype(call.args[1].to_tensor().dtype());
  Tensor g = call.args[0].to_tensor().to(t), y = call.args[1].to_tensor().to(t);
  call.args[3].to_tensor().copy_(g - exp(y) * row_sum(g, call.args[2].to_int()));
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
  for (auto [name, composite] : {std::pair<const char*, KernelFn>{"softmax_backward",
                                                                  softmax_backward_composite},
                                 {"log_softmax_backward", log_softmax_backward_composite}}) {
    std::string functional =
        fmt::format("{}(Tensor grad_output, Tensor output, int dim) -> Tensor", name);
    std::string out = fmt::format(
        "{}.out(Tensor grad_output, Tensor output, int dim, *, Tensor(a!) out) -> Tensor(a!)",
        name);
    d.define({.functional = functional,
              .out = out,
              .meta = softmax_backward_meta,
              .composite = composite,
              .dtypes = kFloatTypes});
  }
}

}  // namespace plexus
