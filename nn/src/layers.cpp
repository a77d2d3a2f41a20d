// Layers and losses.
#include <cmath>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
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

namespace plexus::nn {

Tensor GELU::forward(const Tensor& input) {
  return gelu(input, approximate_);
}
Tensor SiLU::forward(const Tensor& input) {
  return silu(input);
}
Tensor Tanh::forward(const Tensor& input) {
  return tanh(input);
}
Tensor Sigmoid::forward(const Tensor& input) {
  return sigmoid(input);
}
Tensor Flatten::forward(const Tensor& input) {
  return input.flatten(start_, end_);
}

namespace {
// A window argument of Conv2d or MaxPool2d: one value (both dims) or two,
// each at least `min`, as two values.
std::vector<int64_t> pair(const char* module, const char* name, std::vector<int64_t> v,
                          int64_t min) {
  PLEXUS_CHECK(v.size() == 1 || v.size() == 2, ErrorCode::InvalidArgument,
               "{}: {} takes one value or two (height, width), got {}", module, name,
               shape_str(v));
  std::vector<int64_t> two{v[0], v.back()};
  PLEXUS_CHECK(two[0] >= min && two[1] >= min, ErrorCode::InvalidArgument,
               "{}: {} must be at least {}, got {}", module, name, min, shape_str(v));
  return two;
}
}  // namespace

Conv2d::Conv2d(int64_t in, int64_t out, std::vector<int64_t> kernel, Generator& gen,
               std::vector<int64_t> stride_, std::vector<int64_t> padding_,
               std::vector<int64_t> dilation_, int64_t groups_, bool with_bias,
               TensorOptions options)
    : in_channels(in), out_channels(out), groups(groups_),
      kernel_size(pair("Conv2d", "kernel_size", std::move(kernel), 1)),
      stride(pair("Conv2d", "stride", std::move(stride_), 1)),
      padding(pair("Conv2d", "padding", std::move(padding_), 0)),
      dilation(pair("Conv2d", "dilation", std::move(dilation_), 1)) {
  PLEXUS_CHECK(in > 0 && out > 0 && groups > 0, ErrorCode::InvalidArgument,
               "Conv2d({}, {}, groups={}): channel counts and groups must be positive", in, out,
               groups);
  PLEXUS_CHECK(in % groups == 0 && out % groups == 0, ErrorCode::InvalidArgument,
               "Conv2d({}, {}): groups={} must divide both channel counts", in, out, groups);
  // PyTorch: kaiming_uniform_(a = sqrt(5)), uniform in +-1/sqrt(fan_in), and
  // the same bound for the bias.
  const int64_t fan_in = in / groups * kernel_size[0] * kernel_size[1];
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  weight = rand({out, in / groups, kernel_size[0], kernel_size[1]}, gen, options, -bound, bound);
  register_parameter("weight", &weight);
  if (with_bias) {
    bias = rand({out}, gen, options, -bound, bound);
    register_parameter("bias", &bias);
  }
}

Tensor Conv2d::forward(const Tensor& input) {
  const int64_t c = input.dim() == 4 ? input.size(1) : input.dim() == 3 ? input.size(0) : -1;
  PLEXUS_CHECK(c == in_channels, ErrorCode::InvalidArgument,
               "{} (Conv2d({}, {})): expected input [N, {}, H, W] or [{}, H, W], got {}",
               path().empty() ? "Conv2d" : path(), in_channels, out_channels, in_channels,
               in_channels, shape_str(input.sizes()));
  return conv2d(input, weight, bias, stride, padding, dilation, groups);
}

MaxPool2d::MaxPool2d(std::vector<int64_t> kernel, std::vector<int64_t> stride,
                     std::vector<int64_t> padding, std::vector<int64_t> dilation, bool ceil_mode)
    : kernel_size_(pair("MaxPool2d", "kernel_size", std::move(kernel), 1)),
      stride_(stride.empty() ? kernel_size_ : pair("MaxPool2d", "stride", std::move(stride), 1)),
      padding_(pair("MaxPool2d", "padding", std::move(padding), 0)),
      dilation_(pair("MaxPool2d", "dilation", std::move(dilation), 1)),
      ceil_mode_(ceil_mode) {}

Tensor MaxPool2d::forward(const Tensor& input) {
  return max_pool2d(input, kernel_size_, stride_, padding_, dilation_, ceil_mode_);
}

Dropout::Dropout(double p, Generator& gen) : p_(p), gen_(gen.next_u64()) {
  PLEXUS_CHECK(p >= 0 && p <= 1, ErrorCode::InvalidArgument,
               "Dropout: p is the probability of zeroing an element, in [0, 1]; got {}", p);
}

Tensor Dropout::forward(const Tensor& input) {
  if (!is_training() || p_ == 0) return input;
  PLEXUS_CHECK(is_floating(input.dtype()), ErrorCode::InvalidArgument,
               "{} (Dropout): expected a floating input, got {}",
               path().empty() ? "Dropout" : path(), dtype_name(input.dtype()));
  if (p_ == 1) return mul(input, 0.0);
  // keep: 1 with probability 1 - p, drawn on the input's device.
  Tensor keep = empty(input.sizes(), {input.dtype(), input.device()});
  bernoulli_(keep, 1.0 - p_, gen_);
  return mul(input, mul(keep, 1.0 / (1.0 - p_)));
}

LayerNorm::LayerNorm(std::vector<int64_t> normalized_shape, double eps, bool affine,
                     TensorOptions options)
    : shape_(std::move(normalized_shape)), eps_(eps) {
  PLEXUS_CHECK(!shape_.empty(), ErrorCode::InvalidArgument,
               "LayerNorm: normalized_shape must name at least one dim");
  if (affine) {
    weight = ones(shape_, options);
    bias = zeros(shape_, options);
    register_parameter("weight", &weight);
    register_parameter("bias", &bias);
  }
}

Tensor LayerNorm::forward(const Tensor& input) {
  return layer_norm(input, shape_, weight, bias, eps_);
}

Embedding::Embedding(int64_t num, int64_t dim, Generator& gen, int64_t padding_idx,
                     TensorOptions options)
    : padding_idx_(padding_idx) {
  PLEXUS_CHECK(num > 0 && dim > 0, ErrorCode::InvalidArgument,
               "Embedding({}, {}): sizes must be positive", num, dim);
  PLEXUS_CHECK(padding_idx >= -1 && padding_idx < num, ErrorCode::InvalidArgument,
               "Embedding: padding_idx must be -1 (none) or in [0, {}), got {}", num, padding_idx);
  weight = randn({num, dim}, gen, options);
  if (padding_idx >= 0) {
    NoGradGuard no_grad;
    weight.select(0, padding_idx).fill_(0.0);
  }
  register_parameter("weight", &weight);
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding(weight, indices, padding_idx_);
}

namespace {
int64_t reduction_code(const std::string& r, const char* who, bool allow_none) {
  if (r == "mean") return 1;
  if (r == "sum") return 2;
  if (r == "none" && allow_none) return 0;
  fail(ErrorCode::InvalidArgument, "{}: reduction must be 'mean', 'sum'{}, got '{}'", who,
       allow_none ? " or 'none'" : "", r);
}
Tensor reduce(const Tensor& t, int64_t code) {
  return code == 0 ? t : code == 1 ? mean(t) : sum(t);
}
}  // namespace

L1Loss::L1Loss(std::string reduction) : reduction_(std::move(reduction)) {
  reduction_code(reduction_, "L1Loss", true);
}
Tensor L1Loss::operator()(const Tensor& input, const Tensor& target) const {
  return reduce(abs(sub(input, target)), reduction_code(reduction_, "L1Loss", true));
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const std::string& reduction) {
  int64_t code = reduction_code(reduction, "nll_loss", true);
  PLEXUS_CHECK(log_probs.dim() == 2, ErrorCode::InvalidArgument,
               "nll_loss: expected log-probabilities [N, C], got {}", shape_str(log_probs.sizes()));
  PLEXUS_CHECK(target.dim() == 1 && target.size(0) == log_probs.size(0) &&
                   !is_floating(target.dtype()) && target.dtype() != DType::Bool,
               ErrorCode::InvalidArgument,
               "nll_loss: expected integer class indices [{}], got {}", log_probs.size(0),
               target.str());
  const int64_t classes = log_probs.size(1);
  {
    NoGradGuard no_grad;
    if (target.numel() > 0) {
      int64_t lo = amin(target.to(DType::I64)).item<int64_t>();
      int64_t hi = amax(target.to(DType::I64)).item<int64_t>();
      PLEXUS_CHECK(lo >= 0 && hi < classes, ErrorCode::InvalidArgument,
                   "nll_loss: class indices must be in [0, {}), got values from {} to {}",
                   classes, lo, hi);
    }
  }
  // The picked log-probability of each row: a one-hot mask, summed per row.
  Tensor all = arange(0, classes, 1, TensorOptions(target.dtype(), target.device())).unsqueeze(0);
  Tensor picked = eq(target.unsqueeze(1), all).to(log_probs.dtype());
  Tensor per_row = neg(sum(mul(log_probs, picked), std::vector<int64_t>{1}));
  return reduce(per_row, code);
}

CrossEntropyLoss::CrossEntropyLoss(std::string reduction) : reduction_(std::move(reduction)) {
  reduction_code(reduction_, "CrossEntropyLoss", true);
}
Tensor CrossEntropyLoss::operator()(const Tensor& logits, const Tensor& target) const {
  return nll_loss(log_softmax(logits, 1), target, reduction_);
}

}  // namespace plexus::nn
