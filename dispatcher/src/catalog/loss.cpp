// Losses: mse_loss, a composite of catalog ops (no kernels), and its
// gradient mse_loss_backward(grad_output, self, target, reduction) =
// norm (self - target) grad_output, norm = 2 / numel for 'mean' and 2
// otherwise: elementwise over the three (grad_output is 0-d unless the
// reduction is 'none'), with a composite default and one pass where a plugin
// registers a kernel. The gradient for target is its negative.
#include <algorithm>

#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// mse_loss(self, target, reduction): mean, sum or none of (self - target)^2.
void mse_loss_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  const Tensor& target = call.args[1].to_tensor();
  int64_t reduction = call.args[2].to_int();
  PLEXUS_CHECK_ARG(reduction >= 0 && reduction <= 2, "reduction",
                   "must be 0 (none), 1 (mean) or 2 (sum), got {}", reduction);
  DType t = promote_types(self.dtype(), target.dtype());
  PLEXUS_CHECK_ARG(is_floating(t), "self", "mse_loss needs floating tensors, got {} and {}",
                   dtype_name(self.dtype()), dtype_name(target.dtype()));
  naming_argument("target", [&] { return broadcast_shapes(self.sizes(), target.sizes()); });
  // Promote first: sub refuses bool operands, mse_loss does not.
  Tensor diff = sub(self.to(t), target.to(t));
  Tensor sq = mul(diff, diff);
  call.result = reduction == 0 ? sq : reduction == 1 ? mean(sq) : sum(sq);
}

// mse_loss_backward(grad_output, self, target, reduction): floating, broadcast.
OutputSpec mse_loss_backward_meta(MetaContext& ctx) {
  int64_t reduction = ctx.integer(3);
  PLEXUS_CHECK_ARG(reduction >= 0 && reduction <= 2, ctx.name(3),
                   "must be 0 (none), 1 (mean) or 2 (sum), got {}", reduction);
  if (reduction != 0)
    PLEXUS_CHECK_ARG(ctx.tensor(0).dim() == 0, ctx.name(0),
                     "a reduced loss has a 0-d gradient, got shape {}",
                     shape_str(ctx.tensor(0).sizes()));
  OutputSpec spec = elementwise_meta(ctx, {0, 1, 2});
  PLEXUS_CHECK_ARG(is_floating(spec.compute_dtype), ctx.name(1),
                   "mse_loss_backward needs floating tensors, got {}",
                   dtype_name(spec.compute_dtype));
  return spec;
}

// mse_loss_backward.out: (self - target) * grad_output * norm.
void mse_loss_backward_composite(void*, KernelCall& call) {
  const Tensor& out = call.args[4].to_tensor();
  const int64_t n = std::max<int64_t>(out.numel(), 1);
  const double norm = call.args[3].to_int() == 1 ? 2.0 / static_cast<double>(n) : 2.0;
  const DType t = accumulate_dtype(out.dtype());
  Tensor diff = call.args[1].to_tensor().to(t) - call.args[2].to_tensor().to(t);
  out.copy_(diff * call.args[0].to_tensor().to(t) * norm);
}

}  // namespace

void define_loss_ops(Dispatcher& d) {
  d.define_direct("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                  mse_loss_composite);
  d.define({.functional = "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
                          "int reduction=1) -> Tensor",
            .out = "mse_loss_backward.out(Tensor grad_output, Tensor self, Tensor target, "
                   "int reduction=1, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = mse_loss_backward_meta,
            .composite = mse_loss_backward_composite,
            .dtypes = kFloatTypes,
            .elementwise = true});
}

}  // namespace plexus
