// Optimizers with PyTorch's update formulas, state kept by parameter name so
// it saves and loads by name. Each update runs one of three ways (UpdatePath).
//
//   optim::Adam opt(model.named_parameters(), {.lr = 1e-3});
//   opt.zero_grad(); loss.backward(); opt.step();
#pragma once

#include <filesystem>
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
  // Per-parameter state ("fc1.weight.exp_avg", "fc1.weight.step": PyTorch's
  // per-parameter state under the parameter's name), detached. Parameters
  // that have not been stepped have none.
  virtual std::map<std::string, Tensor> state_dict() const;
  // Takes the state of another optimizer of the same kind and settings
  // (state_dict(), or a file): a parameter's entries replace its state, in
  // place where it exists (a compiled step keeps reading the same tensors),
  // converted to the parameter's dtype and device. A parameter without
  // entries keeps its state. Errors, listed together and before anything
  // changes: an entry that is not "<parameter>.<state key>" of this
  // optimizer (unexpected; ignored when not strict), a parameter with only
  // some of its keys (incomplete), a value of the wrong shape (mis-shaped).
  void load_state_dict(const std::map<std::string, Tensor>& state, bool strict = true);
  void save(const std::filesystem::path& file) const;  // safetensors
  void load(const std::filesystem::path& file, bool strict = true);

 protected:
  // The state keys this optimizer keeps for each parameter it has stepped
  // ("exp_avg", ...; "step" is a 0-d count).
  virtual std::vector<std::string> state_keys() const = 0;
  // Sets the loaded `value` (checked: the parameter's shape, or one element
  // for "step") as state `key` of parameter `name`, whose tensor is p.
  virtual void set_state(const std::string& name, const Tensor& p, const std::string& key,
                         const Tensor& value);
  // The state tensor `key` of parameter `name` (undefined until set).
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

 protected:
  std::vector<std::string> state_keys() const override;

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
  // `capturable` says. With amsgrad they call adam_step_.amsgrad(_list).
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
  // The next steps use these betas (checked as the constructor checks them).
  // Unlike lr, betas stay host numbers on every path, so a compiled step
  // captures again after a change (and is never wrong): the fused kernels
  // compute the bias corrections 1 - beta^t from log(beta) taken in double
  // on the host, which a 0-d device tensor would turn into float arithmetic
  // on the device; and betas, unlike lr, are rarely scheduled.
  void set_betas(double beta1, double beta2);
  double beta1() const { return o_.beta1; }
  double beta2() const { return o_.beta2; }
  std::map<std::string, Tensor> state_dict() const override;

 protected:
  std::vector<std::string> state_keys() const override;
  void set_state(const std::string& name, const Tensor& p, const std::string& key,
                 const Tensor& value) override;

 private:
  // Which step() runs: the fused catalog steps, or the capturable or plain
  // per-tensor updates. The step count lives where that path keeps it.
  bool fused() const { return o_.path != UpdatePath::PerTensor; }
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
