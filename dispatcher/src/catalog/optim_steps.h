// The per-tensor optimizer steps written in catalog ops: the composites of
// adam_step_ and sgd_step_ (catalog/optim.cpp).
#pragma once

#include "plexus/ops_optim.h"

namespace plexus {

void adam_step_ops(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                   const Tensor& exp_avg_sq, const Tensor& step, const Tensor& lr,
                   const AdamStepOptions& o);
void sgd_step_ops(const Tensor& self, const Tensor& grad, const Tensor& momentum_buffer,
                  const Tensor& lr, const SgdStepOptions& o);

}  // namespace plexus
