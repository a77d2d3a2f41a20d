// Module: parameters by dotted name, device and dtype moves, state dicts.
#include <fmt/format.h>

#include <set>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/nn.h"
#include "plexus/safetensors.h"

namespace plexus::nn {

void Module::register_parameter(const std::string& name, Tensor* slot) {
  PLEXUS_CHECK(slot && slot->defined(), ErrorCode::InvalidArgument,
               "register_parameter: '{}' is undefined", name);
  if (!slot->requires_grad()) slot->requires_grad_();
  params_.emplace_back(name, slot);
}

void Module::adopt(const std::string& name, const std::shared_ptr<Module>& child) {
  PLEXUS_CHECK(child != nullptr, ErrorCode::InvalidArgument, "register_module: '{}' is null",
               name);
  child->set_path(path_.empty() ? name : path_ + "." + name);
  children_.emplace_back(name, child);
}

void Module::set_path(const std::string& path) {
  path_ = path;
  for (auto& [name, c] : children_) c->set_path(path + "." + name);
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, Tensor*>>& out) const {
  for (const auto& [name, slot] : params_) out.emplace_back(prefix + name, slot);
  for (const auto& [name, c] : children_) c->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor*>> slots;
  collect("", slots);
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& [name, slot] : slots) out.emplace_back(name, *slot);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

void Module::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters()) {
    if (set_to_none || !p.grad().defined()) p.set_grad({});
    else p.grad().zero_();
  }
}

namespace {
// Replaces every parameter with a converted copy that is a leaf requiring grad.
template <typename F>
void convert(std::vector<std::pair<std::string, Tensor*>>& slots, F f) {
  NoGradGuard no_grad;
  for (auto& [name, slot] : slots) {
    Tensor moved = f(slot->detach());
    if (moved.is_same(*slot) || moved.storage() == slot->storage()) moved = moved.clone();
    moved.requires_grad_();
    *slot = moved;
  }
}
}  // namespace

Module& Module::to(Device device) {
  std::vector<std::pair<std::string, Tensor*>> slots;
  collect("", slots);
  convert(slots, [device](const Tensor& t) { return t.to(device); });
  return *this;
}

Module& Module::to(DType dtype) {
  PLEXUS_CHECK(is_floating(dtype), ErrorCode::InvalidArgument,
               "Module::to: parameters must stay floating, got {}", dtype_name(dtype));
  std::vector<std::pair<std::string, Tensor*>> slots;
  collect("", slots);
  convert(slots, [dtype](const Tensor& t) { return t.to(dtype); });
  return *this;
}

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [name, c] : children_) c->train(on);
  return *this;
}

std::map<std::string, Tensor> Module::state_dict() const {
  std::map<std::string, Tensor> out;
  for (auto& [name, t] : named_parameters()) out.emplace(name, t.detach());
  return out;
}

void Module::load_state_dict(const std::map<std::string, Tensor>& state, bool strict) {
  std::vector<std::pair<std::string, Tensor*>> slots;
  collect("", slots);
  std::vector<std::string> missing, unexpected, misshaped;
  std::set<std::string> known;
  for (auto& [name, slot] : slots) {
    known.insert(name);
    auto it = state.find(name);
    if (it == state.end()) {
      missing.push_back(name);
      continue;
    }
    if (!std::equal(it->second.sizes().begin(), it->second.sizes().end(), slot->sizes().begin(),
                    slot->sizes().end()))
      misshaped.push_back(fmt::format("{} (file {}, model {})", name,
                                      shape_str(it->second.sizes()), shape_str(slot->sizes())));
  }
  for (auto& [name, t] : state)
    if (!known.count(name)) unexpected.push_back(name);
  bool bad = !misshaped.empty() || (strict && (!missing.empty() || !unexpected.empty()));
  PLEXUS_CHECK(!bad, ErrorCode::InvalidArgument,
               "load_state_dict: missing keys [{}]; unexpected keys [{}]; mis-shaped [{}]; "
               "nothing was loaded",
               fmt::join(missing, ", "), fmt::join(unexpected, ", "), fmt::join(misshaped, ", "));
  NoGradGuard no_grad;
  for (auto& [name, slot] : slots) {
    auto it = state.find(name);
    if (it != state.end()) slot->copy_(it->second.to(slot->device(), slot->dtype()));
  }
}

void Module::save(const std::filesystem::path& file) const {
  save_safetensors(file, state_dict());
}

void Module::load(const std::filesystem::path& file, bool strict) {
  load_state_dict(load_safetensors(file).tensors, strict);
}

}  // namespace plexus::nn
