// The per-tensor optimizer steps written in catalog ops: the composites of
// adam_step_ (and .amsgrad) and sgd_step_ (catalog/optim.cpp).
#pragma once

#include "plexus/ops_optim.h"

namespace plexus {

// With max_exp_avg_sq defined: AMSGrad (the denominator from the running
// maximum of exp_avg_sq, updated in place).
void adam_step_ops(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                   const Tensor& exp_avg_sq, const Tensor& step, const Tensor& lr,
                   const AdamStepOptions& o, const Tensor& max_exp_avg_sq = Tensor());
void sgd_step_ops(const Tensor& self, const Tensor& grad, const Tensor& momentum_buffer,
                  const Tensor& lr, const SgdStepOptions& o);

}  // namespace plexus
