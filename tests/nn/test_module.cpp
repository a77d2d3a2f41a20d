// nn: modules, their parameter names, initialisation, moves, state dicts.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "plexus/autograd.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"

using namespace plexus;
using Catch::Contains;

namespace {
struct Net : nn::Module {
  explicit Net(Generator& gen)
      : fc1(register_module("fc1", nn::make<nn::Linear>(3, 4, gen))),
        body(register_module("body", nn::make<nn::Sequential>())) {
    body->add(nn::make<nn::ReLU>()).add(nn::make<nn::Linear>(4, 2, gen, false));
  }
  Tensor forward(const Tensor& x) override { return body->forward(fc1->forward(x)); }
  std::shared_ptr<nn::Linear> fc1;
  std::shared_ptr<nn::Sequential> body;
};

std::vector<std::string> names(const nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [n, t] : m.named_parameters()) out.push_back(n);
  return out;
}
}  // namespace

TEST_CASE("parameters have PyTorch's dotted names, in registration order", "[nn]") {
  Generator gen(1);
  Net net(gen);
  CHECK(names(net) == std::vector<std::string>{"fc1.weight", "fc1.bias", "body.1.weight"});
  for (const Tensor& p : net.parameters()) {
    CHECK(p.requires_grad());
    CHECK(p.is_leaf());
  }
  CHECK(net.body->path() == "body");
}

TEST_CASE("Linear's default initialisation is uniform in +-1/sqrt(in_features), seeded",
          "[nn]") {
  Generator a(7), b(7), c(8);
  nn::Linear l1(100, 50, a), l2(100, 50, b), l3(100, 50, c);
  std::vector<float> w = l1.weight.tolist<float>();
  const double bound = 0.1;
  double lo = 1, hi = -1;
  for (float v : w) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  CHECK(lo >= -bound);
  CHECK(hi <= bound);
  CHECK(hi - lo > 1.9 * bound);  // it spans the range
  CHECK(w == l2.weight.tolist<float>());
  CHECK(w != l3.weight.tolist<float>());
}

TEST_CASE("a Linear given the wrong number of features names the module and both sizes",
          "[nn]") {
  Generator gen(2);
  Net net(gen);
  CHECK_THROWS_WITH(net.forward(ones({5, 7})),
                    Contains("fc1 (Linear(3, 4))") && Contains("7 features") &&
                        Contains("expected 3"));
}

TEST_CASE("backward through a module fills every parameter's grad; zero_grad clears them",
          "[nn]") {
  Generator gen(3);
  Net net(gen);
  mse_loss(net.forward(ones({5, 3})), zeros({5, 2})).backward();
  for (auto& [n, p] : net.named_parameters()) {
    INFO(n);
    CHECK(p.grad().defined());
  }
  net.zero_grad(false);
  for (const Tensor& p : net.parameters()) CHECK(sum(abs(p.grad())).item<float>() == 0);
  net.zero_grad();
  for (const Tensor& p : net.parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("to(dtype) converts parameters, which stay leaves that require grad", "[nn]") {
  Generator gen(4);
  Net net(gen);
  std::vector<float> before = net.fc1->weight.tolist<float>();
  net.to(DType::F64);
  CHECK(net.fc1->weight.dtype() == DType::F64);
  CHECK(net.fc1->weight.requires_grad());
  CHECK(net.fc1->weight.is_leaf());
  std::vector<double> after = net.fc1->weight.tolist<double>();
  for (size_t i = 0; i < before.size(); ++i) CHECK(after[i] == double(before[i]));
  CHECK(net.forward(ones({2, 3}, TensorOptions(DType::F64))).dtype() == DType::F64);
}

TEST_CASE("state dicts round-trip through safetensors; bad ones change nothing", "[nn]") {
  Generator g1(5), g2(6);
  Net a(g1), b(g2);
  auto file = std::filesystem::temp_directory_path() / "plexus-test-module.safetensors";
  a.save(file);
  b.load(file);
  for (auto& [name, t] : a.state_dict()) CHECK(t.tolist<float>() == b.state_dict()[name].tolist<float>());

  Generator g3(9);
  Net c(g3);
  std::vector<float> kept = c.fc1->weight.tolist<float>();
  std::map<std::string, Tensor> bad = a.state_dict();
  bad.erase("fc1.bias");
  bad["extra"] = ones({1});
  bad["body.1.weight"] = ones({3, 3});
  CHECK_THROWS_WITH(c.load_state_dict(bad), Contains("missing keys [fc1.bias]") &&
                                                Contains("unexpected keys [extra]") &&
                                                Contains("body.1.weight (file [3, 3], model [2, 4])"));
  CHECK(c.fc1->weight.tolist<float>() == kept);
  // Not strict: missing and unexpected keys are fine, mis-shaped ones are not.
  bad.erase("body.1.weight");
  c.load_state_dict(bad, false);
  CHECK(c.fc1->weight.tolist<float>() == a.fc1->weight.tolist<float>());
  std::filesystem::remove(file);
}

TEST_CASE("activation, Flatten, LayerNorm and Embedding modules", "[nn]") {
  Generator gen(12);
  nn::LayerNorm ln({4});
  CHECK(names(ln) == std::vector<std::string>{"weight", "bias"});
  Tensor x = randn({3, 4}, gen);
  std::vector<float> y = ln.forward(x).tolist<float>();
  double row = 0;
  for (int i = 0; i < 4; ++i) row += y[size_t(i)];
  CHECK(std::abs(row) < 1e-5);  // each row has mean 0
  nn::Embedding emb(5, 3, gen, 2);
  CHECK(emb.weight.select(0, 2).tolist<float>() == std::vector<float>{0, 0, 0});
  CHECK(emb.forward(tensor<int64_t>({4, 2})).sizes().size() == 2);
  CHECK_THROWS_WITH(nn::Embedding(5, 3, gen, 7), Contains("padding_idx must be -1"));
  CHECK(nn::Flatten().forward(ones({2, 3, 4})).size(1) == 12);
  CHECK(nn::Sigmoid().forward(zeros({1})).item<float>() == 0.5f);
  CHECK(nn::SiLU().forward(zeros({1})).item<float>() == 0.0f);
  CHECK_THROWS_WITH(nn::CrossEntropyLoss()(ones({2, 3}), tensor<int64_t>({0, 3})),
                    Contains("class indices must be in [0, 3)"));
  CHECK_THROWS_WITH(nn::L1Loss("avg"), Contains("reduction must be"));
}

TEST_CASE("Conv2d: PyTorch's parameter shapes, names and initialisation bounds", "[nn][conv]") {
  Generator gen(21);
  nn::Conv2d conv(4, 6, {3, 2}, gen, {2}, {1}, {1}, 2);
  CHECK(names(conv) == std::vector<std::string>{"weight", "bias"});
  CHECK(conv.weight.sizes() == IntArrayRef({6, 2, 3, 2}));
  CHECK(conv.bias.sizes() == IntArrayRef({6}));
  // fan_in = 4 / 2 * 3 * 2 = 12: every value within 1/sqrt(12), and spread out.
  const double bound = 1 / std::sqrt(12.0);
  std::vector<float> w = conv.weight.tolist<float>();
  float lo = w[0], hi = w[0];
  for (float v : w) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(lo >= -bound);
  CHECK(hi <= bound);
  CHECK(hi - lo > bound);
  Tensor x = randn({2, 4, 7, 6}, gen);
  Tensor want = conv2d(x, conv.weight, conv.bias, {2}, {1}, {1}, 2);
  CHECK(conv.forward(x).tolist<float>() == want.tolist<float>());
  CHECK(conv.forward(x.select(0, 0)).sizes() == want.select(0, 0).sizes());  // unbatched
  CHECK(names(nn::Conv2d(3, 3, {1}, gen, {1}, {0}, {1}, 1, false)) ==
        std::vector<std::string>{"weight"});
  CHECK_THROWS_WITH(nn::Conv2d(4, 6, {3}, gen, {1}, {0}, {1}, 4),
                    Contains("groups=4 must divide both channel counts"));
  CHECK_THROWS_WITH(nn::Conv2d(4, 6, {3, 3, 3}, gen), Contains("kernel_size takes one value or two"));
  CHECK_THROWS_WITH(conv.forward(randn({2, 3, 7, 6}, gen)),
                    Contains("expected input [N, 4, H, W]") && Contains("[2, 3, 7, 6]"));
}

TEST_CASE("MaxPool2d: stride defaults to the kernel size", "[nn][pool]") {
  Generator gen(22);
  Tensor x = randn({2, 3, 8, 8}, gen);
  CHECK(nn::MaxPool2d({2}).forward(x).sizes() == IntArrayRef({2, 3, 4, 4}));
  CHECK(nn::MaxPool2d({3}, {1}, {1}).forward(x).tolist<float>() ==
        max_pool2d(x, {3}, {1}, {1}).tolist<float>());
  CHECK_THROWS_WITH(nn::MaxPool2d({0}), Contains("kernel_size must be at least 1"));
}

TEST_CASE("a small convolutional network learns a spatial task", "[nn][conv]") {
  // The target is the brightest 2x2 block's mean of an 8x8 image. Over a
  // fixed random filter the linear head cannot fit it: the network must
  // learn its convolution through conv2d's and max_pool2d's gradients.
  Generator data_gen(23);
  Tensor x = randn({256, 1, 8, 8}, data_gen);
  Tensor blocks = mean(x.reshape({256, 1, 4, 2, 4, 2}), std::vector<int64_t>{3, 5});
  Tensor y = amax(blocks.reshape({256, 16}), {1}, true);
  auto train = [&](bool learn_conv) {
    Generator gen(24);
    // A 2x2 filter at stride 2 can become the block mean; pooling over the
    // 4x4 result then gives the target.
    auto conv = nn::make<nn::Conv2d>(1, 1, std::vector<int64_t>{2}, gen, std::vector<int64_t>{2});
    auto net = nn::make<nn::Sequential>();
    net->add(conv)
        .add(nn::make<nn::MaxPool2d>(std::vector<int64_t>{4}))
        .add(nn::make<nn::Flatten>())
        .add(nn::make<nn::Linear>(1, 1, gen));
    optim::NamedParameters params;
    for (auto& [name, p] : net->named_parameters())
      if (learn_conv || name.rfind("0.", 0) != 0) params.emplace_back(name, p);
    optim::Adam opt(params, {.lr = 0.01});
    for (int step = 0; step < 200; ++step) {
      opt.zero_grad();
      mse_loss(net->forward(x), y).backward();
      opt.step();
    }
    NoGradGuard g;
    return mse_loss(net->forward(x), y).item<float>();
  };
  const float frozen = train(false), learned = train(true);
  INFO("final loss: " << frozen << " with the convolution fixed, " << learned << " learned");
  CHECK(learned < frozen / 3);
}

TEST_CASE("Dropout zeroes a fraction p in training, scales the rest, and passes through in eval",
          "[nn]") {
  Generator gen(25);
  nn::Dropout drop(0.3, gen);
  Tensor x = ones({100, 100}).requires_grad_();
  Tensor y = drop.forward(x);
  std::vector<float> v = y.tolist<float>();
  int64_t zeros_seen = 0;
  for (float e : v) {
    if (e == 0) {
      ++zeros_seen;
    } else {
      CHECK(e == Approx(1 / 0.7));
    }
  }
  // 10000 draws: the zero fraction is within 0.03 of p (over 6 standard deviations).
  CHECK(std::abs(static_cast<double>(zeros_seen) / 10000 - 0.3) < 0.03);
  // The gradient is the same mask, scaled.
  y.sum().backward();
  CHECK(x.grad().tolist<float>() == v);
  // A new mask on each call; the same masks from the same seed.
  CHECK(drop.forward(x).tolist<float>() != v);
  Generator again(25);
  CHECK(nn::Dropout(0.3, again).forward(x).tolist<float>() == v);
  drop.eval();
  CHECK(drop.forward(x).tolist<float>() == x.tolist<float>());
  drop.train();
  CHECK(nn::Dropout(1.0, gen).forward(x).sum().item<float>() == 0);
  CHECK(nn::Dropout(0.0, gen).forward(x).tolist<float>() == x.tolist<float>());
  CHECK_THROWS_WITH(nn::Dropout(1.5, gen), Contains("in [0, 1]"));
  CHECK_THROWS_WITH(nn::Dropout(0.5, gen).forward(tensor<int64_t>({1, 2})),
                    Contains("floating input"));
}
