// Optimizers: PyTorch's update formulas, recomputed here in double.
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/autograd.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/optim.h"

using namespace plexus;
using Catch::Contains;

namespace {
// A leaf p and a loss whose gradient is g (loss = sum(p * g)).
Tensor leaf(std::initializer_list<double> v) {
  Tensor t = tensor<double>(v);
  t.requires_grad_();
  return t;
}
void set_gradient(const Tensor& p, const std::vector<double>& g) {
  Tensor gt = empty({static_cast<int64_t>(g.size())}, TensorOptions(DType::F64));
  std::copy(g.begin(), g.end(), gt.data<double>());
  sum(mul(p, gt)).backward();
}
}  // namespace

TEST_CASE("Adam follows PyTorch's update step by step, with weight decay", "[optim]") {
  for (bool decoupled : {false, true}) {
    INFO("decoupled " << decoupled);
    Tensor p = leaf({1.0, -2.0, 0.5});
    optim::AdamOptions o{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-6, .weight_decay = 0.01,
                         .decoupled_weight_decay = decoupled};
    optim::Adam opt({{"w", p}}, o);
    std::vector<double> ref = {1.0, -2.0, 0.5}, m(3, 0), v(3, 0);
    const std::vector<std::vector<double>> grads = {{0.3, -1, 2}, {0.1, 0.2, -0.3}, {1, 1, 1}};
    for (size_t t = 1; t <= grads.size(); ++t) {
      opt.zero_grad();
      set_gradient(p, grads[t - 1]);
      opt.step();
      for (size_t i = 0; i < 3; ++i) {
        double g = grads[t - 1][i];
        if (decoupled) ref[i] *= 1 - o.lr * o.weight_decay;
        else g += o.weight_decay * ref[i];
        m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
        v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
        double mhat = m[i] / (1 - std::pow(o.beta1, double(t)));
        double denom = std::sqrt(v[i]) / std::sqrt(1 - std::pow(o.beta2, double(t))) + o.eps;
        ref[i] -= o.lr * mhat / denom;
      }
      std::vector<double> got = p.detach().tolist<double>();
      for (size_t i = 0; i < 3; ++i) CHECK(got[i] == Approx(ref[i]).epsilon(1e-12));
    }
    CHECK(opt.steps("w") == 3);
    CHECK(opt.state_dict().count("w.exp_avg") == 1);
    CHECK(opt.state_dict().count("w.exp_avg_sq") == 1);
  }
}

TEST_CASE("Adam's betas changed between steps take effect on every path", "[optim]") {
  for (optim::UpdatePath path :
       {optim::UpdatePath::PerTensor, optim::UpdatePath::List, optim::UpdatePath::Fused}) {
    INFO("path " << int(path));
    // `a` starts with other betas and is set to b's before its second step:
    // from then on the two must update alike.
    Tensor pa = leaf({1.0, -2.0, 0.5}), pb = leaf({1.0, -2.0, 0.5});
    optim::Adam a({{"w", pa}}, {.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .path = path});
    optim::Adam b({{"w", pb}}, {.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .path = path});
    for (optim::Adam* o : {&a, &b}) {
      o->zero_grad();
      set_gradient(o == &a ? pa : pb, {0.3, -1, 2});
      o->step();
    }
    a.set_betas(0.5, 0.6);
    b.set_betas(0.5, 0.6);
    CHECK(a.beta1() == 0.5);
    CHECK(a.beta2() == 0.6);
    Tensor before = pa.detach().clone();
    for (optim::Adam* o : {&a, &b}) {
      o->zero_grad();
      set_gradient(o == &a ? pa : pb, {0.1, 0.2, -0.3});
      o->step();
    }
    CHECK(pa.detach().tolist<double>() == pb.detach().tolist<double>());
    // The second step used the new betas: redo it by hand from the state.
    // m2 = 0.5 m1 + 0.5 g2 with m1 = 0.2 g1 (beta1 was 0.8 for step 1).
    const double g1 = 0.3, g2 = 0.1;
    const double m = 0.5 * (0.2 * g1) + 0.5 * g2, v = 0.6 * (0.1 * g1 * g1) + 0.4 * g2 * g2;
    const double expect = before.tolist<double>()[0] -
                          0.1 * (m / (1 - 0.25)) / (std::sqrt(v) / std::sqrt(1 - 0.36) + 1e-8);
    CHECK(pa.detach().tolist<double>()[0] == Approx(expect).epsilon(1e-12));
    CHECK_THROWS_WITH(a.set_betas(1.0, 0.5), Contains("betas must be in [0, 1)"));
    CHECK(a.beta1() == 0.5);
  }
}

TEST_CASE("SGD with momentum and nesterov follows PyTorch's update", "[optim]") {
  Tensor p = leaf({1.0, 2.0});
  optim::SGD opt({{"w", p}}, {.lr = 0.5, .momentum = 0.9, .nesterov = true});
  std::vector<double> ref = {1.0, 2.0}, buf(2, 0);
  const std::vector<std::vector<double>> grads = {{1, -1}, {0.5, 0.25}};
  for (size_t t = 0; t < grads.size(); ++t) {
    opt.zero_grad();
    set_gradient(p, grads[t]);
    opt.step();
    for (size_t i = 0; i < 2; ++i) {
      buf[i] = t == 0 ? grads[t][i] : 0.9 * buf[i] + grads[t][i];
      ref[i] -= 0.5 * (grads[t][i] + 0.9 * buf[i]);
    }
    std::vector<double> got = p.detach().tolist<double>();
    CHECK(got[0] == Approx(ref[0]));
    CHECK(got[1] == Approx(ref[1]));
  }
}

TEST_CASE("optimizers refuse bad parameters and settings", "[optim]") {
  Tensor ok = leaf({1.0});
  Tensor ints = ones({2}, TensorOptions(DType::I64));
  Tensor nonleaf = mul(ok, 2.0);
  CHECK_THROWS_WITH(optim::Adam({{"i", ints}}, {}), Contains("'i' must be a floating tensor"));
  CHECK_THROWS_WITH(optim::Adam({{"n", nonleaf}}, {}), Contains("'n' must be a leaf"));
  CHECK_THROWS_WITH(optim::Adam({{"w", ok}}, {.lr = -1}), Contains("must not be negative"));
  CHECK_THROWS_WITH(optim::Adam({{"w", ok}}, {.beta2 = 1.0}), Contains("betas must be in [0, 1)"));
  CHECK_THROWS_WITH(optim::Adam({{"w", ok}, {"w", ok}}, {}), Contains("appears twice"));
  CHECK_THROWS_WITH(optim::SGD({{"w", ok}}, {.nesterov = true}), Contains("nesterov"));
}
