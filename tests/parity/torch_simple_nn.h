// The seed's network in libtorch, starting from a plexus SimpleNN's weights:
// the peer of tests/parity/test_training.cpp and bench/train.cpp.
#pragma once

#include "parity/torch_bridge.h"
#include "simple_nn.h"

namespace plexus::testing {

struct TorchSimpleNN : torch::nn::Module {
  torch::nn::Linear fc1{10, 64}, fc2{64, 32}, fc3{32, 1};
  explicit TorchSimpleNN(const train::SimpleNN& m) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
    torch::NoGradGuard g;
    for (auto& [name, t] : m.named_parameters()) named_parameters()[name].copy_(to_torch(t));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return fc3(torch::relu(fc2(torch::relu(fc1(x)))));
  }
};

}  // namespace plexus::testing
