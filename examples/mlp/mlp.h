// The example's model: a 3-layer perceptron 10 -> 64 -> 32 -> 1 with ReLU
// between layers, its weights as named tensors (PyTorch's nn.Linear layout:
// "fc1.weight" [64, 10], "fc1.bias" [64], ...) and its forward pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "plexus/tensor.h"

namespace mlp {

// Layer widths: input, two hidden layers, output.
inline constexpr int64_t kWidths[] = {10, 64, 32, 1};
inline constexpr int kLayers = 3;

// Weights by name, as stored in the safetensors file.
using Weights = std::map<std::string, plexus::Tensor>;

// Weights drawn from a seeded generator, uniform in +-1/sqrt(fan_in) as
// PyTorch initializes nn.Linear.
Weights seeded_weights(uint32_t seed);
// Loads weights from a safetensors file and checks that every tensor the model
// needs is there with its shape and a floating dtype (converted to float32).
// Throws plexus::Error naming the file, the tensor and what was expected.
Weights load_weights(const std::filesystem::path& path);
// The weights on `device`.
Weights to_device(const Weights& w, plexus::Device device);

// A [batch, 10] float32 input, seeded, uniform in [-1, 1).
plexus::Tensor seeded_inputs(int64_t batch, uint32_t seed);
// relu(relu(x W1^T + b1) W2^T + b2) W3^T + b3: [batch, 10] -> [batch, 1], on x's device.
plexus::Tensor forward(const Weights& w, const plexus::Tensor& x);

}  // namespace mlp
