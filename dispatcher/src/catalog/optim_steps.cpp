// The per-tensor optimizer steps in catalog ops, as optim's capturable
// per-tensor path runs them (PyTorch's single-tensor formulas with 0-d step
// and lr): the composites every backend gets for adam_step_ and sgd_step_.
// float16 and bfloat16 steps compute in float32 and round once.
#include "catalog/optim_steps.h"

#include "catalog/catalog.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus {

void adam_step_ops(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                   const Tensor& exp_avg_sq, const Tensor& step, const Tensor& lr,
                   const AdamStepOptions& o, const Tensor& max_exp_avg_sq) {
  if (const DType acc = accumulate_dtype(self.dtype()); acc != self.dtype()) {
    // float16 and bfloat16: the step in float32, each written tensor rounded once.
    Tensor p = self.to(acc), m = exp_avg.to(acc), v = exp_avg_sq.to(acc);
    Tensor vmax = max_exp_avg_sq.defined() ? max_exp_avg_sq.to(acc) : Tensor();
    adam_step_ops(p, grad.to(acc), m, v, step, lr.to(acc), o, vmax);
    self.copy_(p);
    exp_avg.copy_(m);
    exp_avg_sq.copy_(v);
    if (vmax.defined()) max_exp_avg_sq.copy_(vmax);
    return;
  }
  const Tensor one = wrapped_scalar(1.0);
  step.add_(one);
  Tensor g = grad;
  if (o.weight_decay != 0) {
    if (o.decoupled_weight_decay) self.mul_(sub(one, mul(lr, o.weight_decay)));
    else g = add(g, self, o.weight_decay);
  }
  exp_avg.lerp_(g, 1 - o.beta1);
  exp_avg_sq.mul_(wrapped_scalar(o.beta2));
  exp_avg_sq.addcmul_(g, g, 1 - o.beta2);
  Tensor step_c = step.to(self.dtype());
  Tensor bc1 = sub(one, pow(wrapped_scalar(o.beta1), step_c));
  Tensor bc2_sqrt = sqrt(sub(one, pow(wrapped_scalar(o.beta2), step_c)));
  Tensor step_size = div(lr, bc1);
  Tensor second = exp_avg_sq;
  if (max_exp_avg_sq.defined()) {
    max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq));
    second = max_exp_avg_sq;
  }
  Tensor denom = add(div(sqrt(second), bc2_sqrt), o.eps);
  self.sub_(mul(div(exp_avg, denom), step_size));
}

void sgd_step_ops(const Tensor& self, const Tensor& grad, const Tensor& momentum_buffer,
                  const Tensor& lr, const SgdStepOptions& o) {
  if (const DType acc = accumulate_dtype(self.dtype()); acc != self.dtype()) {
    Tensor p = self.to(acc), buf = momentum_buffer.defined() ? momentum_buffer.to(acc) : Tensor();
    sgd_step_ops(p, grad.to(acc), buf, lr.to(acc), o);
    self.copy_(p);
    if (buf.defined()) momentum_buffer.copy_(buf);
    return;
  }
  Tensor g = grad;
  if (o.weight_decay != 0) g = add(g, self, o.weight_decay);
  if (o.momentum != 0) {
    const Tensor& buf = momentum_buffer;
    if (o.first_step) {
      buf.copy_(g);
    } else {
      buf.mul_(wrapped_scalar(o.momentum));
      buf.add_(g, 1 - o.dampening);
    }
    g = o.nesterov ? add(g, buf, o.momentum) : buf;
  }
  self.sub_(mul(g, lr));
}

}  // namespace plexus
