// The list and fused update paths of Adam and SGD (UpdatePath::List and
// ::Fused): the state of every parameter with a gradient gathered into lists,
// then one call of the fused catalog step for all of them, or one per parameter.
#include <algorithm>
#include <functional>

#include "plexus/autograd.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/optim.h"

namespace plexus::optim {
namespace {
Tensor zeros_like_param(const Tensor& p) { return zeros(p.sizes(), {p.dtype(), p.device()}); }
// The learning rate as a 0-d cpu tensor: float64 for float64 parameters, else
// float32 (float16 and bfloat16 steps compute in float32).
Tensor lr_tensor(double lr, const Tensor& p) {
  return full({}, lr, {p.dtype() == DType::F64 ? DType::F64 : DType::F32, Device()});
}
}  // namespace

void Adam::step_fused() {
  NoGradGuard no_grad;
  if (params_.empty()) return;
  if (!lr_.defined()) lr_ = lr_tensor(o_.lr, params_.front().second);
  std::vector<Tensor> ps, gs, ms, vs, ss, maxes;
  ps.reserve(params_.size());
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor& m = state(name, "exp_avg");
    if (!m.defined()) {
      m = zeros_like_param(p);
      state(name, "exp_avg_sq") = zeros_like_param(p);
      state(name, "step") = zeros({}, {DType::F32, p.device()});
    }
    if (o_.amsgrad) {
      Tensor& vmax = state(name, "max_exp_avg_sq");
      if (!vmax.defined()) vmax = zeros_like_param(p);
      maxes.push_back(vmax);
    }
    ps.push_back(p);
    gs.push_back(std::move(g));
    ms.push_back(m);
    vs.push_back(state(name, "exp_avg_sq"));
    ss.push_back(state(name, "step"));
  }
  const AdamStepOptions so{o_.beta1, o_.beta2, o_.eps, o_.weight_decay, o_.decoupled_weight_decay};
  if (o_.path == UpdatePath::List) {
    if (!ps.empty()) adam_step_(ps, gs, ms, vs, ss, lr_, so, maxes);
    return;
  }
  for (size_t k = 0; k < ps.size(); ++k)
    adam_step_(ps[k], gs[k], ms[k], vs[k], ss[k], lr_, so, o_.amsgrad ? maxes[k] : Tensor());
}

void SGD::step_fused() {
  NoGradGuard no_grad;
  if (params_.empty()) return;
  if (!lr_.defined()) lr_ = lr_tensor(o_.lr, params_.front().second);
  std::vector<Tensor> ps, gs, bufs;
  std::vector<bool> fresh;  // the momentum buffer starts this step (set to the gradient)
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    ps.push_back(p);
    gs.push_back(std::move(g));
    if (o_.momentum == 0) continue;
    Tensor& buf = state(name, "momentum_buffer");
    fresh.push_back(!buf.defined());
    if (!buf.defined()) buf = zeros_like_param(p);
    bufs.push_back(buf);
  }
  if (ps.empty()) return;
  SgdStepOptions so{o_.momentum, o_.dampening, o_.weight_decay, o_.nesterov, false};
  const bool same =
      std::adjacent_find(fresh.begin(), fresh.end(), std::not_equal_to<>()) == fresh.end();
  if (o_.path == UpdatePath::List && same) {
    so.first_step = !fresh.empty() && fresh.front();
    sgd_step_(ps, gs, bufs, lr_, so);
    return;
  }
  for (size_t k = 0; k < ps.size(); ++k) {
    so.first_step = !fresh.empty() && fresh[k];
    sgd_step_(ps[k], gs[k], bufs.empty() ? Tensor() : bufs[k], lr_, so);
  }
}

}  // namespace plexus::optim
