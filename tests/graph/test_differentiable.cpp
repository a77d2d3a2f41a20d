// Differentiating through a compiled function: results that require grad
// replay with a CompiledFunctionBackward node whose backward replays the
// captured backward part. Checked against the same function run eagerly.
#include <catch2/catch.hpp>

#include "plexus/autograd.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/random.h"
#include "simple_nn.h"
#include "support/error_of.h"

using namespace plexus;
using Catch::Contains;
using plexus::testing::error_of;

namespace {

double max_rel_diff(const Tensor& a, const Tensor& b) {
  Tensor x = a.to(DType::F64), y = b.to(DType::F64);
  return amax(abs(sub(x, y))).item<double>() / std::max(amax(abs(y)).item<double>(), 1e-30);
}

Tensor leaf(std::initializer_list<int64_t> sizes, uint64_t seed, DType dtype = DType::F32) {
  Generator gen(seed);
  Tensor t = randn(sizes, gen).to(dtype);
  t.requires_grad_();
  return t;
}

}  // namespace

TEST_CASE("compile: a compiled forward trains like the eager one, backward outside", "[graph]") {
  Generator ga(5), gb(5);
  train::SimpleNN eager(ga, Device()), model(gb, Device());
  optim::Adam opt_eager(eager.named_parameters(), {.lr = 1e-2});
  optim::Adam opt(model.named_parameters(), {.lr = 1e-2});
  auto forward = compile([&](const Tensor& x) { return model(x); },
                         {.names = model.named_parameters()});
  Generator data(3);
  for (int i = 0; i < 8; ++i) {
    Tensor x = randn({32, 10}, data), y = randn({32, 1}, data);
    Tensor want = mse_loss(eager(x), y);
    opt_eager.zero_grad();
    want.backward();
    opt_eager.step();
    Tensor out = forward(x);
    REQUIRE(out.requires_grad());
    Tensor got = mse_loss(out, y);
    opt.zero_grad();
    got.backward();
    opt.step();
    INFO("step " << i);
    CHECK(max_rel_diff(got, want) < 1e-5);
    if (i >= 2) {
      REQUIRE(out.grad_fn() != nullptr);
      CHECK(out.grad_fn()->name() == "CompiledFunctionBackward");
    }
  }
  CHECK(forward.stats().replays == 6);
  CHECK(forward.stats().eager_calls == 0);
  REQUIRE(forward.graph() != nullptr);
  CHECK(forward.graph()->differentiable());
  // The six parameters get their gradients from the compiled backward.
  CHECK(forward.graph()->grad_targets.size() == 6);
  auto pe = eager.named_parameters(), pc = model.named_parameters();
  for (size_t k = 0; k < pe.size(); ++k) {
    INFO(pe[k].first);
    REQUIRE(pc[k].second.grad().defined());
    CHECK(max_rel_diff(pc[k].second.grad(), pe[k].second.grad()) < 1e-4);
    CHECK(max_rel_diff(pc[k].second, pe[k].second) < 1e-5);
  }
  // The printed graph shows where the backward part starts.
  CHECK_THAT(forward.graph()->str(), Contains("backward") && Contains("grad_0"));
}

TEST_CASE("compile: gradients of inputs, parameters and non-leaf inputs match eager",
          "[graph]") {
  Tensor w = leaf({4, 3}, 1, DType::F64);
  auto fn = [&](const Tensor& x) { return sum(tanh(matmul(x, w)) * x.narrow(1, 0, 3)); };
  auto f = compile(fn);
  for (int i = 0; i < 4; ++i) {
    Tensor a = leaf({5, 4}, 10 + i, DType::F64);
    Tensor x = mul(a, 2.0);  // not a leaf: the gradient goes on to a
    Tensor got = f(x);
    got.backward();
    Tensor ga = a.grad(), gw = w.grad();
    w.set_grad(Tensor());
    Tensor a2 = a.detach();
    a2.requires_grad_();
    Tensor want = fn(mul(a2, 2.0));
    want.backward();
    INFO("call " << i);
    CHECK(max_rel_diff(got, want) < 1e-12);
    REQUIRE(ga.defined());
    CHECK(max_rel_diff(ga, a2.grad()) < 1e-12);
    CHECK(max_rel_diff(gw, w.grad()) < 1e-12);
    w.set_grad(Tensor());
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: gradcheck passes through a compiled function", "[graph]") {
  auto f = compile([](const Tensor& x, const Tensor& y) { return mul(sigmoid(x), exp(y)); });
  Tensor x = leaf({3, 2}, 3, DType::F64), y = leaf({3, 2}, 4, DType::F64);
  CHECK(autograd::gradcheck([&](const std::vector<Tensor>& in) { return f(in[0], in[1]); },
                            {x, y}, {.fast = false}));
  CHECK(f.stats().replays > 0);
}

TEST_CASE("compile: several results each get their own gradient", "[graph]") {
  auto fn = [](const Tensor& x) {
    return std::vector<Tensor>{mul(x, x), exp(x), sum(x)};
  };
  auto f = compile(fn);
  for (int i = 0; i < 4; ++i) {
    Tensor x = leaf({6}, 20 + i, DType::F64);
    std::vector<Tensor> r = f(x);
    REQUIRE(r.size() == 3);
    // Only two of the three results reach the loss: the third slot gets no gradient.
    add(mul(sum(r[0]), 2.0), mul(sum(r[1]), 3.0)).backward();
    Tensor want = add(mul(x.detach(), 4.0), mul(exp(x.detach()), 3.0));
    INFO("call " << i);
    CHECK(max_rel_diff(x.grad(), want) < 1e-12);
    // Hooks on a result see that result's gradient.
    Tensor x2 = leaf({6}, 30 + i, DType::F64);
    std::vector<Tensor> r2 = f(x2);
    Tensor seen;
    r2[1].register_hook([&](const Tensor& g) {
      seen = g;
      return Tensor();
    });
    mul(sum(r2[1]), 5.0).backward();
    REQUIRE(seen.defined());
    CHECK(amax(abs(sub(seen, full({6}, 5.0, DType::F64)))).item<double>() == 0);
    CHECK(max_rel_diff(x2.grad(), mul(exp(x2.detach()), 5.0)) < 1e-12);
  }
  CHECK(f.stats().replays >= 4);
}

TEST_CASE("compile: forwards waiting for their backward each keep their own values",
          "[graph]") {
  Tensor w = leaf({8}, 2);
  auto f = compile([&](const Tensor& x) { return mul(tanh(mul(x, w)), x); });
  Tensor xs[4];
  for (int i = 0; i < 4; ++i) xs[i] = leaf({8}, 40 + i);
  for (int i = 0; i < 2; ++i) (void)f(xs[i]);  // the two captures
  Tensor total;
  std::vector<Tensor> outs;
  for (int i = 0; i < 4; ++i) outs.push_back(f(xs[i]));  // four forwards, then one backward
  for (const Tensor& o : outs) total = total.defined() ? add(total, sum(o)) : sum(o);
  for (const Tensor& x : xs) x.set_grad(Tensor());
  w.set_grad(Tensor());
  total.backward();
  Tensor gw = w.grad();
  w.set_grad(Tensor());
  Tensor want;
  std::vector<Tensor> x2;
  for (int i = 0; i < 4; ++i) {
    x2.push_back(xs[i].detach());
    x2.back().requires_grad_();
    Tensor s = sum(mul(tanh(mul(x2.back(), w)), x2.back()));
    want = want.defined() ? add(want, s) : s;
  }
  want.backward();
  for (int i = 0; i < 4; ++i) {
    INFO("input " << i);
    CHECK(max_rel_diff(xs[i].grad(), x2[size_t(i)].grad()) < 1e-6);
  }
  CHECK(max_rel_diff(gw, w.grad()) < 1e-6);
  CHECK(f.stats().replays == 4);
}

TEST_CASE("compile: a second backward needs retain_graph, as eager", "[graph]") {
  auto f = compile([](const Tensor& x) { return sum(mul(x, x)); });
  Tensor x = leaf({5}, 7, DType::F64);
  (void)f(x);
  (void)f(x);
  Tensor y = f(x);  // a replay
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(max_rel_diff(x.grad(), mul(x.detach(), 4.0)) < 1e-12);
  Tensor z = f(x);
  z.backward();
  CHECK_THAT(error_of([&] { z.backward(); }).what(), Contains("a second time") && Contains("retain_graph"));
}

TEST_CASE("compile: changing a tensor the backward reads, in place, is an error", "[graph]") {
  // 256 KiB and more: read where the caller has it, not copied.
  auto f = compile([](const Tensor& x) { return sum(mul(x, x)); });
  Tensor x = leaf({256, 256}, 8);
  (void)f(x);
  (void)f(x);
  Tensor y = f(x);
  {
    NoGradGuard g;
    x.add_(ones({256, 256}));
  }
  CHECK_THAT(error_of([&] { y.backward(); }).what(), Contains("input 0") && Contains("changed in place"));
}

TEST_CASE("compile: a training step's result has no history; without grad mode no backward",
          "[graph]") {
  Generator gen(1);
  train::SimpleNN model(gen, Device());
  optim::SGD opt(model.named_parameters(), {.lr = 0.1});
  auto step = compile([&](const Tensor& x, const Tensor& y) {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  });
  Tensor x = randn({4, 10}, gen), y = randn({4, 1}, gen);
  for (int i = 0; i < 3; ++i) CHECK_FALSE(step(x, y).requires_grad());
  REQUIRE(step.graph() != nullptr);
  CHECK_FALSE(step.graph()->differentiable());
  auto forward = compile([&](const Tensor& in) { return model(in); });
  NoGradGuard no_grad;
  for (int i = 0; i < 3; ++i) CHECK_FALSE(forward(x).requires_grad());
  REQUIRE(forward.graph() != nullptr);
  CHECK_FALSE(forward.graph()->differentiable());
}

TEST_CASE("compile: results that are inputs, views or parameters differentiate as eager",
          "[graph]") {
  Tensor w = leaf({3, 4}, 50, DType::F64);
  // The input itself, a view of it, the parameter, and a product of both.
  auto fn = [&](const Tensor& x) {
    return std::vector<Tensor>{x, x.t(), w, matmul(x, w)};
  };
  auto f = compile(fn);
  for (int i = 0; i < 4; ++i) {
    Tensor x = leaf({2, 3}, 60 + uint64_t(i), DType::F64);
    std::vector<Tensor> r = f(x);
    REQUIRE(r.size() == 4);
    Tensor loss = add(add(sum(mul(r[0], 2.0)), sum(mul(r[1], 3.0))),
                      add(sum(mul(r[2], 5.0)), sum(r[3])));
    loss.backward();
    Tensor gx = x.grad(), gw = w.grad();
    w.set_grad(Tensor());
    Tensor x2 = x.detach();
    x2.requires_grad_();
    std::vector<Tensor> e = fn(x2);
    add(add(sum(mul(e[0], 2.0)), sum(mul(e[1], 3.0))), add(sum(mul(e[2], 5.0)), sum(e[3])))
        .backward();
    INFO("call " << i);
    CHECK(max_rel_diff(gx, x2.grad()) < 1e-12);
    CHECK(max_rel_diff(gw, w.grad()) < 1e-12);
    w.set_grad(Tensor());
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: freezing a named parameter captures anew; its gradient stops", "[graph]") {
  Generator gen(9);
  train::SimpleNN model(gen, Device());
  auto named = model.named_parameters();
  auto forward = compile([&](const Tensor& x) { return model(x); }, {.names = named});
  Tensor x = randn({4, 10}, gen);
  auto run = [&] {
    for (auto& [name, p] : named) p.set_grad(Tensor());
    sum(forward(x)).backward();
  };
  for (int i = 0; i < 3; ++i) run();
  CHECK(forward.stats().replays == 1);
  named[0].second.requires_grad_(false);  // fc1.weight frozen
  for (int i = 0; i < 3; ++i) run();
  CHECK(forward.stats().recaptures == 1);
  CHECK_FALSE(named[0].second.grad().defined());
  CHECK(named[1].second.grad().defined());
  CHECK(forward.stats().replays == 2);
  named[0].second.requires_grad_(true);  // back to the first signature, still compiled
  run();
  CHECK(named[0].second.grad().defined());
  CHECK(forward.stats().replays == 3);
}
