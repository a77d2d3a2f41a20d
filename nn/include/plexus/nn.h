// Neural-network modules with PyTorch's dotted parameter names ("fc1.weight"),
// so state dicts move between plexus and PyTorch as safetensors files.
//
//   struct Net : nn::Module {
//     std::shared_ptr<nn::Linear> fc1;
//     explicit Net(Generator& gen)
//         : fc1(register_module("fc1", nn::make<nn::Linear>(10, 64, gen))) {}
//     Tensor forward(const Tensor& x) override { return fc1->forward(x); }
//   };
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plexus/random.h"
#include "plexus/tensor.h"

namespace plexus::nn {

class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  virtual Tensor forward(const Tensor& input) = 0;
  Tensor operator()(const Tensor& input) { return forward(input); }

  // Parameters of this module and its submodules, in registration order,
  // named by dotted path ("fc1.weight").
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  // Clears every parameter's gradient (set_to_none), or fills it with zeros.
  void zero_grad(bool set_to_none = true);
  // Moves or converts every parameter; they stay leaves that require grad.
  Module& to(Device device);
  Module& to(DType dtype);
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  // "fc1" for a registered submodule, "" for the root.
  const std::string& path() const { return path_; }

  // Parameters by dotted name, detached (PyTorch's state_dict).
  std::map<std::string, Tensor> state_dict() const;
  // Copies values into the parameters, converting dtype and device. Strict:
  // missing and unexpected keys are errors. Mis-shaped values always are.
  // Nothing is changed unless every check passes.
  void load_state_dict(const std::map<std::string, Tensor>& state, bool strict = true);
  void save(const std::filesystem::path& file) const;  // safetensors
  void load(const std::filesystem::path& file, bool strict = true);

 protected:
  // `slot` must live as long as the module (a member): to() replaces it.
  void register_parameter(const std::string& name, Tensor* slot);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    adopt(name, m);
    return m;
  }

 private:
  void adopt(const std::string& name, const std::shared_ptr<Module>& child);
  void set_path(const std::string& path);
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor*>>& out) const;
  std::vector<std::pair<std::string, Tensor*>> params_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::string path_;
  bool training_ = true;
};

// y = x W^T + b, with PyTorch's default initialisation: weight and bias
// uniform in +-1/sqrt(in_features).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, Generator& gen, bool bias = true,
         TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;
  int64_t in_features, out_features;
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : approximate_(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;

 private:
  std::string approximate_;
};
class SiLU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
class Tanh : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
// Flattens dims start_dim..end_dim (PyTorch's defaults: 1..-1).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& input) override;

 private:
  int64_t start_, end_;
};
// 2-D convolution of [N, C_in, H, W] (or unbatched [C_in, H, W]) into
// out_channels, with PyTorch's default initialisation: weight and bias
// uniform in +-1/sqrt(fan_in), fan_in = in_channels / groups * kH * kW.
// Window sizes take one value (both dims) or two. Zero padding only.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
         Generator& gen, std::vector<int64_t> stride = {1}, std::vector<int64_t> padding = {0},
         std::vector<int64_t> dilation = {1}, int64_t groups = 1, bool bias = true,
         TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;
  int64_t in_channels, out_channels, groups;
  std::vector<int64_t> kernel_size, stride, padding, dilation;  // two values each
};
// 2-D max pooling; an empty stride means kernel_size, as in PyTorch.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(std::vector<int64_t> kernel_size, std::vector<int64_t> stride = {},
                     std::vector<int64_t> padding = {0}, std::vector<int64_t> dilation = {1},
                     bool ceil_mode = false);
  Tensor forward(const Tensor& input) override;

 private:
  std::vector<int64_t> kernel_size_, stride_, padding_, dilation_;
  bool ceil_mode_;
};
// Dropout: in training, each element is zeroed with probability p and the
// others scaled by 1 / (1 - p); in eval, the identity. The masks come from
// the module's own generator, seeded from `gen` at construction, drawn on the
// input's device (bernoulli_): the same seed gives the same masks on every
// device.
class Dropout : public Module {
 public:
  Dropout(double p, Generator& gen);
  Tensor forward(const Tensor& input) override;
  double p() const { return p_; }

 private:
  double p_;
  Generator gen_;
};
// Layer normalization over the last dims, with weight 1 and bias 0 to start.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
                     bool elementwise_affine = true, TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;

 private:
  std::vector<int64_t> shape_;
  double eps_;
};
// A lookup table of num_embeddings rows, initialised from N(0, 1) as PyTorch.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, Generator& gen,
            int64_t padding_idx = -1, TensorOptions options = {});
  Tensor forward(const Tensor& indices) override;
  Tensor weight;

 private:
  int64_t padding_idx_;
};

// Runs its modules in order; they are named "0", "1", ...
class Sequential : public Module {
 public:
  Sequential& add(std::shared_ptr<Module> m);
  Tensor forward(const Tensor& input) override;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

// Mean squared error: reduction "mean", "sum" or "none".
class MSELoss {
 public:
  explicit MSELoss(std::string reduction = "mean");
  Tensor operator()(const Tensor& input, const Tensor& target) const;

 private:
  int64_t reduction_;
};

// Mean absolute error: reduction "mean", "sum" or "none".
class L1Loss {
 public:
  explicit L1Loss(std::string reduction = "mean");
  Tensor operator()(const Tensor& input, const Tensor& target) const;

 private:
  std::string reduction_;
};

// Cross entropy of logits [N, C] against class indices [N] (int64), as
// log_softmax then the negative log-likelihood; reduction "mean", "sum" or
// "none" (a loss per row).
class CrossEntropyLoss {
 public:
  explicit CrossEntropyLoss(std::string reduction = "mean");
  Tensor operator()(const Tensor& logits, const Tensor& target) const;

 private:
  std::string reduction_;
};
// The negative log-likelihood of log-probabilities [N, C] at class indices [N].
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const std::string& reduction = "mean");

template <typename M, typename... Args>
std::shared_ptr<M> make(Args&&... args) {
  return std::make_shared<M>(std::forward<Args>(args)...);
}

}  // namespace plexus::nn
