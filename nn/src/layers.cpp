// Layers and losses.
#include <cmath>

#include "plexus/error.h"
#include "plexus/nn.h"
#include "plexus/ops.h"

namespace plexus::nn {

Linear::Linear(int64_t in, int64_t out, Generator& gen, bool with_bias, TensorOptions options)
    : in_features(in), out_features(out) {
  PLEXUS_CHECK(in > 0 && out > 0, ErrorCode::InvalidArgument,
               "Linear({}, {}): feature counts must be positive", in, out);
  // PyTorch: kaiming_uniform_(a = sqrt(5)) for the weight, which is uniform in
  // +-1/sqrt(fan_in), and the same bound for the bias.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = rand({out, in}, gen, options, -bound, bound);
  register_parameter("weight", &weight);
  if (with_bias) {
    bias = rand({out}, gen, options, -bound, bound);
    register_parameter("bias", &bias);
  }
}

Tensor Linear::forward(const Tensor& input) {
  PLEXUS_CHECK(input.dim() >= 1 && input.size(-1) == in_features, ErrorCode::InvalidArgument,
               "{} (Linear({}, {})): the input {} has {} features in its last dim, expected {}",
               path().empty() ? "Linear" : path(), in_features, out_features,
               shape_str(input.sizes()), input.dim() ? input.size(-1) : 0, in_features);
  return linear(input, weight, bias);
}

Tensor ReLU::forward(const Tensor& input) {
  return relu(input);
}

Sequential& Sequential::add(std::shared_ptr<Module> m) {
  register_module(std::to_string(modules_.size()), m);
  modules_.push_back(std::move(m));
  return *this;
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& m : modules_) x = m->forward(x);
  return x;
}

MSELoss::MSELoss(std::string reduction) {
  PLEXUS_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none",
               ErrorCode::InvalidArgument,
               "MSELoss: reduction must be 'mean', 'sum' or 'none', got '{}'", reduction);
  reduction_ = reduction == "none" ? 0 : reduction == "mean" ? 1 : 2;
}

Tensor MSELoss::operator()(const Tensor& input, const Tensor& target) const {
  return mse_loss(input, target, reduction_);
}

}  // namespace plexus::nn
