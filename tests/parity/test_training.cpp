// A training trajectory against libtorch 1.13: the seed's network, the same
// initial weights and data, Adam (lr 1e-3) over mini-batches of 32 for two
// epochs; every step's loss and the final weights must agree in float32.

#include "parity/torch_simple_nn.h"  // first: see torch_bridge.h

#include <catch2/catch.hpp>
#include "plexus/nn.h"
#include "plexus/optim.h"
#include "plexus/random.h"

using namespace plexus;
using plexus::testing::to_torch;
using plexus::testing::values;

using TorchNet = plexus::testing::TorchSimpleNN;

TEST_CASE("two epochs of Adam on the seed's network follow libtorch's trajectory", "[parity]") {
  Generator gen(3);
  Tensor x = randn({320, 10}, gen);
  Tensor y = add(mm(x, randn({10, 1}, gen)), mul(randn({320, 1}, gen), 0.1));
  train::SimpleNN model(gen, Device());
  TorchNet tmodel(model);
  optim::Adam opt(model.named_parameters(), {.lr = 1e-3});
  torch::optim::Adam topt(tmodel.parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor tx = to_torch(x), ty = to_torch(y);
  double worst_loss = 0;
  for (int epoch = 0; epoch < 2; ++epoch)
    for (int64_t start = 0; start < 320; start += 32) {
      Tensor loss = mse_loss(model(x.narrow(0, start, 32)), y.narrow(0, start, 32));
      opt.zero_grad();
      loss.backward();
      opt.step();
      torch::Tensor tloss =
          torch::mse_loss(tmodel.forward(tx.narrow(0, start, 32)), ty.narrow(0, start, 32));
      topt.zero_grad();
      tloss.backward();
      topt.step();
      double a = loss.item<double>(), b = tloss.item<double>();
      worst_loss = std::max(worst_loss, std::abs(a - b) / std::abs(b));
    }
  CHECK(worst_loss <= 1e-5);
  for (auto& [name, t] : model.named_parameters()) {
    INFO(name);
    std::vector<double> got = values(t), want = values(tmodel.named_parameters()[name]);
    double largest = 0, diff = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      largest = std::max(largest, std::abs(want[i]));
      diff = std::max(diff, std::abs(got[i] - want[i]));
    }
    CHECK(diff <= 1e-5 * largest);
  }
}

TEST_CASE("nn layers and losses match libtorch's, forward and gradients", "[parity]") {
  Generator gen(11);
  Tensor x = randn({4, 6}, gen, TensorOptions(DType::F64)).requires_grad_();
  torch::Tensor tx = to_torch(x).set_requires_grad(true);
  Tensor target = tensor<int64_t>({2, 0, 5, 1});
  torch::Tensor ttarget = torch::tensor(std::vector<int64_t>{2, 0, 5, 1});
  nn::CrossEntropyLoss ce;
  Tensor loss = ce(x, target);
  torch::Tensor tloss = torch::nn::functional::cross_entropy(tx, ttarget);
  CHECK(loss.item<double>() == Approx(tloss.item<double>()).epsilon(1e-12));
  loss.backward();
  tloss.backward();
  std::vector<double> g = values(x.grad()), tg = values(tx.grad());
  for (size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Approx(tg[i]).epsilon(1e-10).margin(1e-14));

  Tensor y = randn({4, 6}, gen, TensorOptions(DType::F64));
  CHECK(nn::L1Loss()(x, y).item<double>() ==
        Approx(torch::l1_loss(tx, to_torch(y)).item<double>()).epsilon(1e-12));
  nn::Sequential seq;
  seq.add(nn::make<nn::Flatten>()).add(nn::make<nn::GELU>()).add(nn::make<nn::Tanh>());
  Tensor img = randn({2, 3, 2}, gen, TensorOptions(DType::F64));
  torch::Tensor timg = to_torch(img);
  std::vector<double> got = values(seq.forward(img));
  std::vector<double> want = values(torch::tanh(torch::gelu(timg.flatten(1))));
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-12));
}
