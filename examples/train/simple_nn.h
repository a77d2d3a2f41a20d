// The seed program's network: 10 -> 64 -> 32 -> 1 with ReLU, its parameters
// named as PyTorch names them (fc1.weight, fc1.bias, ..., fc3.bias). The
// training benchmark (bench/train.cpp) uses it too.
#pragma once

#include "plexus/nn.h"
#include "plexus/ops.h"

namespace plexus::train {

class SimpleNN : public nn::Module {
 public:
  SimpleNN(Generator& gen, Device device)
      : fc1(register_module("fc1", nn::make<nn::Linear>(10, 64, gen))),
        fc2(register_module("fc2", nn::make<nn::Linear>(64, 32, gen))),
        fc3(register_module("fc3", nn::make<nn::Linear>(32, 1, gen))) {
    to(device);
  }
  Tensor forward(const Tensor& x) override {
    return fc3->forward(relu(fc2->forward(relu(fc1->forward(x)))));
  }
  std::shared_ptr<nn::Linear> fc1, fc2, fc3;
};

}  // namespace plexus::train
