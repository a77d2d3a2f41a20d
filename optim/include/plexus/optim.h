// Optimizers with PyTorch's update formulas (its single-tensor, non-fused
// path), state kept by parameter name so it saves and loads by name.
//
//   optim::Adam opt(model.named_parameters(), {.lr = 1e-3});
//   opt.zero_grad(); loss.backward(); opt.step();
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "plexus/tensor.h"

namespace plexus::optim {

using NamedParameters = std::vector<std::pair<std::string, Tensor>>;

class Optimizer {
 public:
  // Each parameter must be a floating leaf that requires grad, named uniquely.
  explicit Optimizer(NamedParameters params);
  virtual ~Optimizer() = default;
  // One update of every parameter that has a gradient.
  virtual void step() = 0;
  void zero_grad(bool set_to_none = true);
  // The learning rate, and changing it between steps (schedulers do it:
  // plexus/lr_scheduler.h). Throws for a negative rate.
  virtual double lr() const = 0;
  virtual void set_lr(double lr) = 0;
  const NamedParameters& parameters() const { return params_; }
  // Per-parameter state ("fc1.weight.exp_avg"), detached.
  std::map<std::string, Tensor> state_dict() const;

 protected:
  // The state tensor `key` of parameter `name`, created with `make` when missing.
  Tensor& state(const std::string& name, const std::string& key);
  NamedParameters params_;
  std::map<std::string, Tensor> state_;
};

struct SGDOptions {
  double lr = 1e-2;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
};
class SGD : public Optimizer {
 public:
  SGD(NamedParameters params, SGDOptions options);
  void step() override;
  double lr() const override { return o_.lr; }
  void set_lr(double lr) override;

 private:
  SGDOptions o_;
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool decoupled_weight_decay = false;  // AdamW
  // Everything that changes from step to step (the step count, the bias
  // corrections, the learning rate) is a 0-d tensor computed by ops, so a
  // compiled training step (plexus::compile) replays it: PyTorch's
  // capturable=True. A few more small ops per parameter when eager.
  bool capturable = false;
};
class Adam : public Optimizer {
 public:
  Adam(NamedParameters params, AdamOptions options);
  void step() override;
  int64_t steps(const std::string& name) const;
  double lr() const override { return o_.lr; }
  // With capturable, a compiled step sees the new value without capturing
  // again (it reads a 0-d tensor).
  void set_lr(double lr) override;

 private:
  void step_capturable();
  AdamOptions o_;
  std::map<std::string, int64_t> step_;
  Tensor lr_;  // capturable: the learning rate, a 0-d cpu tensor of the parameters' dtype
};

// Adam with decoupled weight decay (default 1e-2, as PyTorch).
class AdamW : public Adam {
 public:
  AdamW(NamedParameters params, AdamOptions options);
};

}  // namespace plexus::optim
