#include "mlp.h"

#include <cmath>
#include <random>

#include "plexus/ops.h"
#include "plexus/safetensors.h"

using namespace plexus;

namespace mlp {

namespace {

std::string weight_name(int layer) {
  return "fc" + std::to_string(layer + 1) + ".weight";
}
std::string bias_name(int layer) {
  return "fc" + std::to_string(layer + 1) + ".bias";
}

Tensor uniform(std::vector<int64_t> sizes, float bound, std::mt19937& rng) {
  Tensor t = empty(sizes, DType::F32);
  std::uniform_real_distribution<float> dist(-bound, bound);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(rng);
  return t;
}

// The tensor `name` of the file, checked against the shape the model needs.
Tensor checked(const Safetensors& file, const std::string& path, const std::string& name,
               std::vector<int64_t> shape) {
  auto it = file.tensors.find(name);
  if (it == file.tensors.end()) {
    std::string names;
    for (const auto& [n, _] : file.tensors) names += (names.empty() ? "" : ", ") + n;
    fail(ErrorCode::NotFound, "weights file '{}' has no tensor '{}' (it has: {})", path, name,
         names.empty() ? "nothing" : names);
  }
  const Tensor& t = it->second;
  std::vector<int64_t> got(t.sizes().begin(), t.sizes().end());
  PLEXUS_CHECK(got == shape, ErrorCode::InvalidArgument,
               "weights file '{}': tensor '{}' has shape {}, expected {}", path, name,
               shape_str(got), shape_str(shape));
  PLEXUS_CHECK(is_floating(t.dtype()), ErrorCode::InvalidArgument,
               "weights file '{}': tensor '{}' has dtype {}, expected a floating dtype", path, name,
               dtype_name(t.dtype()));
  return t.to(DType::F32);
}

}  // namespace

Weights seeded_weights(uint32_t seed) {
  std::mt19937 rng(seed);
  Weights w;
  for (int l = 0; l < kLayers; ++l) {
    int64_t in = kWidths[l], out = kWidths[l + 1];
    float bound = 1.0f / std::sqrt(static_cast<float>(in));
    w[weight_name(l)] = uniform({out, in}, bound, rng);
    w[bias_name(l)] = uniform({out}, bound, rng);
  }
  return w;
}

Weights load_weights(const std::filesystem::path& path) {
  Safetensors file = load_safetensors(path);
  Weights w;
  // A tensor the model has no place for means the wrong file: say so, don't ignore it.
  for (const auto& [name, _] : file.tensors) {
    bool known = false;
    for (int l = 0; l < kLayers; ++l) known |= name == weight_name(l) || name == bias_name(l);
    PLEXUS_CHECK(known, ErrorCode::InvalidArgument,
                 "weights file '{}': tensor '{}' is not part of this model (it has fc1, fc2 "
                 "and fc3, each a .weight and a .bias)",
                 path.string(), name);
  }
  for (int l = 0; l < kLayers; ++l) {
    int64_t in = kWidths[l], out = kWidths[l + 1];
    w[weight_name(l)] = checked(file, path.string(), weight_name(l), {out, in});
    w[bias_name(l)] = checked(file, path.string(), bias_name(l), {out});
  }
  return w;
}

Weights to_device(const Weights& w, Device device) {
  Weights out;
  for (const auto& [name, t] : w) out[name] = t.to(device);
  return out;
}

Tensor seeded_inputs(int64_t batch, uint32_t seed) {
  std::mt19937 rng(seed);
  return uniform({batch, kWidths[0]}, 1.0f, rng);
}

Tensor forward(const Weights& w, const Tensor& x) {
  Tensor h = x;
  for (int l = 0; l < kLayers; ++l) {
    h = linear(h, w.at(weight_name(l)), w.at(bias_name(l)));
    if (l + 1 < kLayers) h = relu(h);
  }
  return h;
}

}  // namespace mlp
