// Fused pointwise ops of three operands: lerp, addcmul, addcdiv.
#include <cmath>

#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// lerp(self, end, weight): floating only, and end must have self's dtype (as in PyTorch).
OutputSpec lerp_meta(MetaContext& ctx) {
  DType self_type = ctx.tensor(0).dtype();
  DType end_type = ctx.tensor(1).dtype();
  if (end_type != self_type)
    fail_arg(ctx.name(1), "must have self's dtype {}, got {}", dtype_name(self_type),
             dtype_name(end_type));
  return elementwise_meta(ctx, {0, 1});
}

// addcmul(self, tensor1, tensor2, value): value must fit the compute dtype.
OutputSpec addcmul_meta(MetaContext& ctx) {
  OutputSpec spec = elementwise_meta(ctx, {0, 1, 2});
  check_scalar_fits(ctx, 3, spec.compute_dtype);
  return spec;
}

// addcdiv divides truly; two integer divisors are refused rather than
// silently floor-divided (PyTorch removed integer addcdiv).
OutputSpec addcdiv_meta(MetaContext& ctx) {
  DType t1 = ctx.tensor(1).dtype();
  DType t2 = ctx.tensor(2).dtype();
  if (is_integral(t1, true) && is_integral(t2, true))
    fail_arg(ctx.name(2),
             "addcdiv of two integer tensors ({} / {}) is not supported; convert "
             "tensor1 or tensor2 to a floating dtype",
             dtype_name(t1), dtype_name(t2));
  return addcmul_meta(ctx);
}

// lerp.Scalar_out(self, end, weight, *, out): self + weight * (end - self),
// taken from the end nearer to weight for accuracy.
void lerp_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  const Tensor& end = call.args[1].to_tensor();
  double w = call.args[2].to_scalar().to_double();
  const Tensor& out = call.args[3].to_tensor();
  Tensor diff = end - self;
  if (std::abs(w) < 0.5)
    add_out(out, self, diff, w);
  else
    sub_out(out, end, diff, 1.0 - w);
}

// addcmul.out(self, tensor1, tensor2, value, *, out): self + value * tensor1 * tensor2.
void addcmul_composite(void*, KernelCall& call) {
  add_out(call.args[4].to_tensor(), call.args[0].to_tensor(),
          mul(call.args[1].to_tensor(), call.args[2].to_tensor()), call.args[3].to_scalar());
}

// addcdiv.out(self, tensor1, tensor2, value, *, out): self + value * tensor1 / tensor2.
void addcdiv_composite(void*, KernelCall& call) {
  add_out(call.args[4].to_tensor(), call.args[0].to_tensor(),
          div(call.args[1].to_tensor(), call.args[2].to_tensor()), call.args[3].to_scalar());
}

}  // namespace

void define_pointwise_ops(Dispatcher& d) {
  d.define({.functional = "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
            .inplace = "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)",
            .out = "lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) "
                   "-> Tensor(a!)",
            .meta = lerp_meta,
            .composite = lerp_composite,
            .dtypes = kFloatTypes,
            .elementwise = true});
  d.define({.functional = "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, "
                          "Scalar value=1) -> Tensor",
            .inplace = "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, "
                       "Scalar value=1) -> Tensor(a!)",
            .out = "addcmul.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = addcmul_meta,
            .composite = addcmul_composite,
            .dtypes = kNumericTypes,
            .elementwise = true});
  d.define({.functional = "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, "
                          "Scalar value=1) -> Tensor",
            .inplace = "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, "
                       "Scalar value=1) -> Tensor(a!)",
            .out = "addcdiv.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = addcdiv_meta,
            .composite = addcdiv_composite,
            .dtypes = kFloatTypes,
            .elementwise = true});
}

}  // namespace plexus
