// Optimizers with PyTorch's update formulas, state kept by parameter name so
// it saves and loads by name. Each update runs one of three ways (UpdatePath).
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

// How step() updates the parameters. Every path follows PyTorch's formulas;
// they agree to a few float32 ULPs per step (tests/optim/test_optim_paths.cpp).
// List and Fused run the catalog's fused steps (adam_step_, sgd_step_,
// plexus/ops_optim.h): a backend's kernel makes one pass over each
// parameter's memory; elsewhere their composite runs the per-tensor ops.
enum class UpdatePath : uint8_t {
  PerTensor,  // catalog ops, parameter by parameter (PyTorch's single-tensor path)
  List,       // one call of the fused step for every parameter (adam_step_.list)
  Fused,      // one call of the fused step per parameter (adam_step_)
};

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
  UpdatePath path = UpdatePath::List;  // how step() runs
};
class SGD : public Optimizer {
 public:
  SGD(NamedParameters params, SGDOptions options);
  void step() override;
  double lr() const override { return o_.lr; }
  void set_lr(double lr) override;

 private:
  void step_fused();
  SGDOptions o_;
  Tensor lr_;  // List and Fused: the learning rate, a 0-d cpu tensor (float32 or float64)
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool decoupled_weight_decay = false;  // AdamW
  // PerTensor only: everything that changes from step to step (the step
  // count, the bias corrections, the learning rate) is a 0-d tensor computed
  // by ops, so a compiled training step (plexus::compile) replays it:
  // PyTorch's capturable=True. A few more small ops per parameter when eager.
  bool capturable = false;
  // List and Fused keep the step count in a 0-d float32 tensor ("<name>.step")
  // and read lr from a 0-d tensor, so they are capturable whatever
  // `capturable` says. amsgrad always runs PerTensor.
  UpdatePath path = UpdatePath::List;
};
class Adam : public Optimizer {
 public:
  Adam(NamedParameters params, AdamOptions options);
  void step() override;
  int64_t steps(const std::string& name) const;
  double lr() const override { return o_.lr; }
  // With capturable or the List and Fused paths, a compiled step sees the new
  // value without capturing again (it reads a 0-d tensor).
  void set_lr(double lr) override;

 private:
  void step_capturable();
  void step_fused();
  AdamOptions o_;
  std::map<std::string, int64_t> step_;
  Tensor lr_;  // capturable and fused: the learning rate, a 0-d cpu tensor of the parameters' dtype
};

// Adam with decoupled weight decay (default 1e-2, as PyTorch).
class AdamW : public Adam {
 public:
  AdamW(NamedParameters params, AdamOptions options);
};

}  // namespace plexus::optim
