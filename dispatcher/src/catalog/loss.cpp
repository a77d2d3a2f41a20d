// Losses: composites of catalog ops (no kernels).
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

}  // namespace

void define_loss_ops(Dispatcher& d) {
  d.define_direct("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                  mse_loss_composite);
}

}  // namespace plexus
