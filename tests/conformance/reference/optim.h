// Reference definitions of the fused optimizer steps (adam_step_ and its
// AMSGrad overloads, sgd_step_):
// PyTorch's Adam, AdamW and SGD updates of one parameter, in double.
#pragma once

#include "reference/tensor.h"

namespace plexus::ref {

struct AdamHyper {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool decoupled = false;
};
// step += 1; then with t = step, decay or L2 weight decay, m = b1 m + (1 - b1) g,
// v = b2 v + (1 - b2) g^2, p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
// AMSGrad (vmax given): vmax = max(vmax, v) (NaN wins), and vmax replaces v
// in the denominator.
void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor& step, double lr,
               const AdamHyper& h, Tensor* vmax = nullptr);

struct SgdHyper {
  double momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, first_step = false;
};
// g += wd p; with momentum: buf = g on the first step, else momentum buf +
// (1 - dampening) g, and g = nesterov ? g + momentum buf : buf; p -= lr g.
void sgd_step(Tensor& p, const Tensor& g, Tensor* buf, double lr, const SgdHyper& h);

}  // namespace plexus::ref
