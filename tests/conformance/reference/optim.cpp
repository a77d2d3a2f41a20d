// Reference optimizer steps: one element at a time, in double, from the
// formulas of PyTorch's documentation.
#include "reference/optim.h"

#include <algorithm>
#include <cmath>

namespace plexus::ref {

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor& step, double lr,
               const AdamHyper& h, Tensor* vmax) {
  const double t = step.at(0) + 1;
  step.set_float(0, t);
  const double bc1 = 1 - std::pow(h.beta1, t), bc2 = 1 - std::pow(h.beta2, t);
  for (int64_t k = 0; k < p.numel(); ++k) {
    double x = p.at(k), gk = g.at(k);
    if (h.decoupled) x *= 1 - lr * h.weight_decay;
    else gk += h.weight_decay * x;
    const double mk = h.beta1 * m.at(k) + (1 - h.beta1) * gk;
    const double vk = h.beta2 * v.at(k) + (1 - h.beta2) * gk * gk;
    m.set_float(k, mk);
    v.set_float(k, vk);
    double second = vk;
    if (vmax) {
      const double old = vmax->at(k);
      second = std::isnan(vk) || std::isnan(old) ? vk + old : std::max(old, vk);
      vmax->set_float(k, second);
    }
    p.set_float(k, x - lr / bc1 * mk / (std::sqrt(second) / std::sqrt(bc2) + h.eps));
  }
}

void sgd_step(Tensor& p, const Tensor& g, Tensor* buf, double lr, const SgdHyper& h) {
  for (int64_t k = 0; k < p.numel(); ++k) {
    double gk = g.at(k) + h.weight_decay * p.at(k);
    if (h.momentum != 0 && buf) {
      const double b = h.first_step ? gk : h.momentum * buf->at(k) + (1 - h.dampening) * gk;
      buf->set_float(k, b);
      gk = h.nesterov ? gk + h.momentum * b : b;
    }
    p.set_float(k, p.at(k) - lr * gk);
  }
}

}  // namespace plexus::ref
