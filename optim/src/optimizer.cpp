// Optimizer, SGD, Adam and AdamW: PyTorch's single-tensor update formulas (the
// PerTensor path; the others are in fused_step.cpp).
#include "plexus/optim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/safetensors.h"
#include "plexus/shape.h"

namespace plexus::optim {

Optimizer::Optimizer(NamedParameters params) : params_(std::move(params)) {
  std::set<std::string> names;
  for (const auto& [name, p] : params_) {
    PLEXUS_CHECK(p.defined() && is_floating(p.dtype()), ErrorCode::InvalidArgument,
                 "optimizer: parameter '{}' must be a floating tensor, got {}", name,
                 p.defined() ? p.str() : "undefined");
    PLEXUS_CHECK(p.is_leaf() && p.requires_grad(), ErrorCode::InvalidArgument,
                 "optimizer: parameter '{}' must be a leaf that requires grad", name);
    PLEXUS_CHECK(names.insert(name).second, ErrorCode::InvalidArgument,
                 "optimizer: parameter name '{}' appears twice", name);
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (const auto& [name, p] : params_) {
    if (set_to_none || !p.grad().defined()) p.set_grad({});
    else p.grad().zero_();
  }
}

std::map<std::string, Tensor> Optimizer::state_dict() const {
  std::map<std::string, Tensor> out;
  for (const auto& [key, t] : state_)
    if (t.defined()) out.emplace(key, t.detach());
  return out;
}

void Optimizer::load_state_dict(const std::map<std::string, Tensor>& state, bool strict) {
  const std::vector<std::string> keys = state_keys();
  // Each entry as (parameter index, key); parameter names may hold dots.
  std::map<size_t, std::map<std::string, const Tensor*>> found;
  std::vector<std::string> unexpected, misshaped, incomplete;
  for (const auto& [entry, value] : state) {
    bool matched = false;
    for (size_t i = 0; i < params_.size() && !matched; ++i) {
      const auto& [name, p] = params_[i];
      if (entry.size() <= name.size() + 1 || entry.compare(0, name.size(), name) != 0 ||
          entry[name.size()] != '.')
        continue;
      std::string key = entry.substr(name.size() + 1);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      matched = true;
      bool shape_ok = value.defined() && (key == "step" ? value.numel() == 1
                                                        : std::ranges::equal(value.sizes(), p.sizes()));
      if (!shape_ok) {
        misshaped.push_back(fmt::format("{} ({}, parameter {})", entry,
                                        value.defined() ? shape_str(value.sizes()) : "undefined",
                                        key == "step" ? "one element" : shape_str(p.sizes())));
      } else if (key == "step") {
        const double n = value.reshape({}).item<double>();
        if (!(n >= 0 && n == std::floor(n)))
          misshaped.push_back(fmt::format("{} ({}, expected a whole number of steps)", entry, n));
      }
      found[i][key] = &value;
    }
    if (!matched) unexpected.push_back(entry);
  }
  for (const auto& [i, entries] : found)
    for (const std::string& key : keys)
      if (!entries.count(key)) incomplete.push_back(params_[i].first + "." + key);
  const bool bad = !misshaped.empty() || !incomplete.empty() || (strict && !unexpected.empty());
  PLEXUS_CHECK(!bad, ErrorCode::InvalidArgument,
               "optimizer load_state_dict: unexpected keys [{}]; missing from a parameter's "
               "state [{}]; mis-shaped [{}]; this optimizer keeps [{}] per parameter; nothing "
               "was loaded",
               fmt::join(unexpected, ", "), fmt::join(incomplete, ", "),
               fmt::join(misshaped, ", "), fmt::join(keys, ", "));
  NoGradGuard no_grad;
  for (const auto& [i, entries] : found)
    for (const auto& [key, value] : entries)
      set_state(params_[i].first, params_[i].second, key, *value);
}

void Optimizer::set_state(const std::string& name, const Tensor& p, const std::string& key,
                          const Tensor& value) {
  Tensor& t = state(name, key);
  Tensor v = value.to(p.device(), p.dtype());
  if (t.defined() && std::ranges::equal(t.sizes(), v.sizes()) && t.dtype() == v.dtype() &&
      t.device() == v.device())
    t.copy_(v);
  else
    t = v.clone();
}

void Optimizer::save(const std::filesystem::path& file) const {
  save_safetensors(file, state_dict());
}

void Optimizer::load(const std::filesystem::path& file, bool strict) {
  load_state_dict(load_safetensors(file).tensors, strict);
}

Tensor& Optimizer::state(const std::string& name, const std::string& key) {
  return state_[name + "." + key];
}

namespace {
void check_rate(const char* what, double lr) {
  PLEXUS_CHECK(lr >= 0, ErrorCode::InvalidArgument, "{}: learning rate must not be negative, got {}",
               what, lr);
}
Tensor scalar_like(double v, const Tensor& p) {
  return full({}, v, {p.dtype(), p.device()});
}
}  // namespace

SGD::SGD(NamedParameters params, SGDOptions o) : Optimizer(std::move(params)), o_(o) {
  check_rate("SGD", o.lr);
  PLEXUS_CHECK(o.momentum >= 0 && o.weight_decay >= 0, ErrorCode::InvalidArgument,
               "SGD: momentum {} and weight_decay {} must not be negative", o.momentum,
               o.weight_decay);
  PLEXUS_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ErrorCode::InvalidArgument,
               "SGD: nesterov needs momentum > 0 and dampening 0");
}

void SGD::set_lr(double lr) {
  check_rate("SGD", lr);
  o_.lr = lr;
  if (lr_.defined()) lr_.fill_(lr);  // List and Fused read it
}

std::vector<std::string> SGD::state_keys() const {
  if (o_.momentum == 0) return {};
  return {"momentum_buffer"};
}

void SGD::step() {
  if (o_.path != UpdatePath::PerTensor) return step_fused();
  NoGradGuard no_grad;
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (o_.weight_decay != 0) g = add(g, p, o_.weight_decay);
    if (o_.momentum != 0) {
      Tensor& buf = state(name, "momentum_buffer");
      if (!buf.defined()) {
        buf = g.clone();
      } else {
        buf.mul_(scalar_like(o_.momentum, buf));
        buf.add_(g, 1 - o_.dampening);
      }
      g = o_.nesterov ? add(g, buf, o_.momentum) : buf;
    }
    p.add_(g, -o_.lr);
  }
}

namespace {
void check_betas(double beta1, double beta2) {
  PLEXUS_CHECK(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1, ErrorCode::InvalidArgument,
               "Adam: betas must be in [0, 1), got ({}, {})", beta1, beta2);
}
}  // namespace

Adam::Adam(NamedParameters params, AdamOptions o) : Optimizer(std::move(params)), o_(o) {
  check_rate("Adam", o.lr);
  check_betas(o.beta1, o.beta2);
  PLEXUS_CHECK(o.eps >= 0 && o.weight_decay >= 0, ErrorCode::InvalidArgument,
               "Adam: eps {} and weight_decay {} must not be negative", o.eps, o.weight_decay);
}

int64_t Adam::steps(const std::string& name) const {
  if (o_.capturable || fused()) {
    auto it = state_.find(name + ".step");
    return it == state_.end() ? 0 : static_cast<int64_t>(it->second.item<double>());
  }
  auto it = step_.find(name);
  return it == step_.end() ? 0 : it->second;
}

std::vector<std::string> Adam::state_keys() const {
  std::vector<std::string> keys{"step", "exp_avg", "exp_avg_sq"};
  if (o_.amsgrad) keys.push_back("max_exp_avg_sq");
  return keys;
}

std::map<std::string, Tensor> Adam::state_dict() const {
  std::map<std::string, Tensor> out = Optimizer::state_dict();
  // The plain per-tensor path counts steps on the host: saved as PyTorch
  // saves a step, a 0-d float32 tensor.
  for (const auto& [name, n] : step_)
    out.emplace(name + ".step", full({}, static_cast<double>(n), {DType::F32, Device()}));
  return out;
}

void Adam::set_state(const std::string& name, const Tensor& p, const std::string& key,
                     const Tensor& value) {
  if (key != "step") return Optimizer::set_state(name, p, key, value);
  const double n = value.reshape({}).item<double>();  // checked by load_state_dict
  if (!fused() && !o_.capturable) {
    step_[name] = static_cast<int64_t>(n);
    return;
  }
  // Where the fused and capturable paths keep the count (fused_step.cpp, step_capturable).
  Tensor& t = state(name, "step");
  DType dtype = fused() ? DType::F32 : p.dtype();
  if (t.defined() && t.dtype() == dtype && t.device() == p.device())
    t.fill_(n);
  else
    t = full({}, n, {dtype, p.device()});
}

void Adam::set_lr(double lr) {
  check_rate("Adam", lr);
  o_.lr = lr;
  if (lr_.defined()) lr_.fill_(lr);
}

void Adam::set_betas(double beta1, double beta2) {
  check_betas(beta1, beta2);
  o_.beta1 = beta1;
  o_.beta2 = beta2;
}

// PyTorch's capturable single-tensor Adam: the same update as step(), with
// the per-step numbers computed on the device from a 0-d step count.
void Adam::step_capturable() {
  NoGradGuard no_grad;
  // The learning rate in the parameters' dtype, so it joins their ops as is.
  if (!lr_.defined() && !params_.empty())
    lr_ = full({}, o_.lr, {params_.front().second.dtype(), Device()});
  const Tensor one = wrapped_scalar(1.0);
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor& step = state(name, "step");
    Tensor& m = state(name, "exp_avg");
    Tensor& v = state(name, "exp_avg_sq");
    if (!m.defined()) {
      step = zeros({}, {p.dtype(), p.device()});
      m = zeros(p.sizes(), {p.dtype(), p.device()});
      v = zeros(p.sizes(), {p.dtype(), p.device()});
    }
    step.add_(one);
    if (o_.weight_decay != 0) {
      if (o_.decoupled_weight_decay) p.mul_(sub(one, mul(lr_, o_.weight_decay)));
      else g = add(g, p, o_.weight_decay);
    }
    m.lerp_(g, 1 - o_.beta1);
    v.mul_(wrapped_scalar(o_.beta2));
    v.addcmul_(g, g, 1 - o_.beta2);
    Tensor bc1 = sub(one, pow(wrapped_scalar(o_.beta1), step));
    Tensor bc2_sqrt = sqrt(sub(one, pow(wrapped_scalar(o_.beta2), step)));
    Tensor step_size = div(lr_, bc1);
    Tensor second = v;
    if (o_.amsgrad) {
      Tensor& vmax = state(name, "max_exp_avg_sq");
      if (!vmax.defined()) vmax = zeros(p.sizes(), {p.dtype(), p.device()});
      vmax.copy_(maximum(vmax, v));  // in place: a compiled step keeps reading the same tensor
      second = vmax;
    }
    Tensor denom = add(div(sqrt(second), bc2_sqrt), o_.eps);
    p.sub_(mul(div(m, denom), step_size));
  }
}

void Adam::step() {
  if (fused()) return step_fused();
  if (o_.capturable) return step_capturable();
  NoGradGuard no_grad;
  for (const auto& [name, p] : params_) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    int64_t step = ++step_[name];
    if (o_.weight_decay != 0) {
      if (o_.decoupled_weight_decay) p.mul_(scalar_like(1 - o_.lr * o_.weight_decay, p));
      else g = add(g, p, o_.weight_decay);
    }
    Tensor& m = state(name, "exp_avg");
    Tensor& v = state(name, "exp_avg_sq");
    if (!m.defined()) {
      m = zeros(p.sizes(), {p.dtype(), p.device()});
      v = zeros(p.sizes(), {p.dtype(), p.device()});
    }
    m.lerp_(g, 1 - o_.beta1);
    v.mul_(scalar_like(o_.beta2, v));
    v.addcmul_(g, g, 1 - o_.beta2);
    const double bc1 = 1 - std::pow(o_.beta1, static_cast<double>(step));
    const double bc2 = 1 - std::pow(o_.beta2, static_cast<double>(step));
    const double step_size = o_.lr / bc1;
    Tensor second = v;
    if (o_.amsgrad) {
      Tensor& vmax = state(name, "max_exp_avg_sq");
      vmax = vmax.defined() ? maximum(vmax, v) : v.clone();
      second = vmax;
    }
    Tensor denom = add(div(sqrt(second), std::sqrt(bc2)), o_.eps);
    p.addcdiv_(m, denom, -step_size);
  }
}

AdamW::AdamW(NamedParameters params, AdamOptions o)
    : Adam(std::move(params), [&] {
        o.decoupled_weight_decay = true;
        return o;
      }()) {}

}  // namespace plexus::optim
