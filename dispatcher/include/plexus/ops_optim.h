// Fused optimizer steps as catalog ops (dispatcher/src/catalog/optim.cpp):
// one call updates a parameter and its state in one pass over memory where a
// backend has a kernel, or every parameter of a list in one call. PyTorch's
// Adam, AdamW and SGD formulas; the step count and learning rate are 0-d
// tensors, so a compiled training step replays them.
#pragma once

#include <span>

#include "plexus/tensor.h"

namespace plexus {

struct AdamStepOptions {
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool decoupled_weight_decay = false;  // AdamW
};
// step += 1, then one Adam update of self, exp_avg and exp_avg_sq from grad.
// step: 0-d float32 (the kernels' dtype; others run the composite) on self's
// device; lr: 0-d floating.
// With max_exp_avg_sq given (adam_step_.amsgrad): AMSGrad, whose denominator
// comes from the running maximum of exp_avg_sq, kept in max_exp_avg_sq.
void adam_step_(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& step, const Tensor& lr,
                const AdamStepOptions& options = {}, const Tensor& max_exp_avg_sq = Tensor());
// The same over lists of parameters, in one call (max_exp_avg_sq: empty, or
// one per parameter for AMSGrad).
void adam_step_(std::span<const Tensor> self, std::span<const Tensor> grad,
                std::span<const Tensor> exp_avg, std::span<const Tensor> exp_avg_sq,
                std::span<const Tensor> step, const Tensor& lr, const AdamStepOptions& options = {},
                std::span<const Tensor> max_exp_avg_sq = {});

struct SgdStepOptions {
  double momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
  bool first_step = false;  // the momentum buffer is set to the gradient, not updated
};
// One SGD update of self (and its momentum buffer, which momentum != 0 needs).
void sgd_step_(const Tensor& self, const Tensor& grad, const Tensor& momentum_buffer,
               const Tensor& lr, const SgdStepOptions& options = {});
// The same over lists; momentum_buffer is empty when momentum is 0.
void sgd_step_(std::span<const Tensor> self, std::span<const Tensor> grad,
               std::span<const Tensor> momentum_buffer, const Tensor& lr,
               const SgdStepOptions& options = {});

}  // namespace plexus
