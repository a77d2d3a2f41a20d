// The autograd engine and the Tensor API around it: leaves and grad_fn,
// accumulation, hooks, grad mode, autograd::grad, retain_graph, in-place
// checks, and each bad input's error.
#include <catch2/catch.hpp>

#include "autograd/random.h"
#include "plexus/autograd.h"
#include "plexus/ops.h"
#include "plexus/profiler.h"

#include <map>
#include <string>

using namespace plexus;
using Catch::Contains;
using plexus::testing::leaf;

namespace {
std::vector<int64_t> sizes_of(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}
std::vector<double> values(const Tensor& t) {
  return t.to(DType::F64).tolist<double>();
}
}  // namespace

TEST_CASE("a small network's gradients, leaves and grad_fn names", "[engine]") {
  Tensor x = leaf({5, 3}, 1), w = leaf({4, 3}, 2), b = leaf({4}, 3), y = leaf({5, 4}, 4);
  y.requires_grad_(false);
  CHECK(w.is_leaf());
  CHECK(w.grad_fn() == nullptr);
  Tensor h = relu(linear(x, w, b));
  CHECK_FALSE(h.is_leaf());
  CHECK(h.requires_grad());
  REQUIRE(h.grad_fn() != nullptr);
  CHECK(h.grad_fn()->name() == "ReluBackward");
  Tensor loss = mse_loss(h, y);
  CHECK(loss.grad_fn()->name() == "MseLossBackward");
  loss.backward();
  REQUIRE(w.grad().defined());
  CHECK(sizes_of(w.grad()) == std::vector<int64_t>{4, 3});
  CHECK(sizes_of(b.grad()) == std::vector<int64_t>{4});
  CHECK_FALSE(y.grad().defined());
  // The same gradient as autograd::grad gives, and as a second graph adds.
  std::vector<Tensor> g = autograd::grad({mse_loss(relu(linear(x, w, b)), y)}, {w});
  CHECK(values(g[0]) == values(w.grad()));
  mse_loss(relu(linear(x, w, b)), y).backward();
  std::vector<double> twice = values(w.grad()), once = values(g[0]);
  for (size_t i = 0; i < once.size(); ++i) CHECK(twice[i] == Approx(2 * once[i]));
}

TEST_CASE("autograd::grad changes no leaf's .grad and runs only what it needs", "[engine]") {
  Tensor x = leaf({4}, 11), w = leaf({4}, 12), v = leaf({4}, 13);
  Tensor y = add(mul(x, w), exp(v));
  std::vector<Tensor> g = autograd::grad({y.sum()}, {x});
  CHECK(values(g[0]) == values(w.detach()));
  // Neither x's nor the other leaves' accumulators ran (torch.autograd.grad
  // does the same).
  CHECK_FALSE(x.grad().defined());
  CHECK_FALSE(w.grad().defined());
  CHECK_FALSE(v.grad().defined());
  // A non-leaf input and a leaf behind it: both gradients, each once.
  Tensor h = mul(x, 3.0);
  std::vector<Tensor> two = autograd::grad({mul(h, h).sum()}, {h, x});
  std::vector<double> hs = values(h.detach()), gh = values(two[0]), gx = values(two[1]);
  for (size_t i = 0; i < hs.size(); ++i) {
    CHECK(gh[i] == Approx(2 * hs[i]));
    CHECK(gx[i] == Approx(6 * hs[i]));
  }
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("a tensor used twice accumulates both gradients", "[engine]") {
  Tensor x = leaf({3}, 5);
  Tensor y = add(mul(x, x), x);  // dy/dx = 2x + 1
  y.sum().backward();
  std::vector<double> xs = values(x.detach()), g = values(x.grad());
  for (size_t i = 0; i < xs.size(); ++i) CHECK(g[i] == Approx(2 * xs[i] + 1));
  x.set_grad({});
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("no-grad and enable-grad guards are per thread and nest", "[engine]") {
  Tensor x = leaf({2}, 6);
  {
    NoGradGuard off;
    CHECK_FALSE(autograd::is_grad_enabled());
    Tensor y = mul(x, 2.0);
    CHECK_FALSE(y.requires_grad());
    {
      EnableGradGuard on;
      CHECK(mul(x, 2.0).requires_grad());
    }
    CHECK_FALSE(x.unsqueeze(0).requires_grad());
  }
  CHECK(autograd::is_grad_enabled());
  CHECK(mul(x, 2.0).requires_grad());
  // Results of comparisons and of detach() never require grad.
  CHECK_FALSE(gt(x, 0.0).requires_grad());
  CHECK_FALSE(x.detach().requires_grad());
}

TEST_CASE("hooks see and may replace a gradient", "[engine]") {
  Tensor x = leaf({3}, 7);
  Tensor y = mul(x, 3.0);
  std::vector<double> seen;
  y.register_hook([&](const Tensor& g) {
    seen = values(g);
    return Tensor();
  });
  x.register_hook([](const Tensor& g) { return mul(g, 10.0); });
  y.sum().backward();
  CHECK(seen == std::vector<double>{1, 1, 1});
  CHECK(values(x.grad()) == std::vector<double>{30, 30, 30});
}

TEST_CASE("retain_graph keeps the graph for a second backward", "[engine]") {
  Tensor x = leaf({2}, 8);
  Tensor y = exp(x).sum();
  y.backward({}, true);
  y.backward();
  std::vector<double> e = values(exp(x.detach())), g = values(x.grad());
  for (size_t i = 0; i < e.size(); ++i) CHECK(g[i] == Approx(2 * e[i]));
  CHECK_THROWS_WITH(y.backward(), Contains("second time") && Contains("retain_graph"));
}

TEST_CASE("gradients reach float32 leaves through float64 ops and back", "[engine]") {
  Tensor x = leaf({3}, 9).detach().to(DType::F32).requires_grad_();
  Tensor y = mul(x.to(DType::F64), 2.0).sum();
  y.backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().dtype() == DType::F32);
  CHECK(values(x.grad()) == std::vector<double>{2, 2, 2});
}

TEST_CASE("in-place ops: version checks, leaves and rebasing", "[engine][inplace]") {
  SECTION("a saved input modified in place fails backward, naming both ops") {
    Tensor a = leaf({3}, 10);
    Tensor b = mul(a, 1.0);
    Tensor c = mul(b, b);  // saves b
    b.add_(ones({3}, TensorOptions(DType::F64)));
    CHECK_THROWS_WITH(c.sum().backward(), Contains("MulBackward") && Contains("add_.Tensor") &&
                                              Contains("modified by an in-place op"));
  }
  SECTION("an in-place op on a leaf that requires grad is refused") {
    Tensor a = leaf({3}, 11);
    CHECK_THROWS_WITH(a.add_(ones({3}, TensorOptions(DType::F64))),
                      Contains("leaf tensor that requires grad"));
    NoGradGuard off;
    a.add_(ones({3}, TensorOptions(DType::F64)));  // the optimizer's way
  }
  SECTION("an in-place op on a non-leaf is recorded") {
    Tensor a = leaf({3}, 12);
    Tensor b = mul(a, 2.0);
    b.add_(ones({3}, TensorOptions(DType::F64)));
    exp_(b);
    CHECK(b.grad_fn()->name() == "ExpBackward");
    b.sum().backward();
    std::vector<double> av = values(a.detach()), g = values(a.grad());
    for (size_t i = 0; i < av.size(); ++i) CHECK(g[i] == Approx(2 * std::exp(2 * av[i] + 1)));
  }
  SECTION("an in-place op that needs its input's old value is refused") {
    Tensor a = leaf({3}, 13);
    Tensor b = mul(a, 2.0);
    CHECK_THROWS_WITH(b.mul_(b), Contains("out-of-place form"));
  }
}

TEST_CASE("bad input gets a clear error", "[engine][errors]") {
  Tensor x = leaf({3}, 14);
  Tensor ints = ones({3}, TensorOptions(DType::I64));
  CHECK_THROWS_WITH(ints.requires_grad_(), Contains("only floating tensors") && Contains("int64"));
  CHECK_THROWS_WITH(mul(x, 2.0).backward(), Contains("3 elements") && Contains("[3]"));
  CHECK_THROWS_WITH(mul(x, 2.0).backward(ones({2}, TensorOptions(DType::F64))),
                    Contains("shape [2]") && Contains("expected [3]"));
  CHECK_THROWS_WITH(mul(x, 2.0).backward(ones({3}, TensorOptions(DType::F32))),
                    Contains("float32") && Contains("expected float64"));
  Tensor plain = ones({3}, TensorOptions(DType::F64));
  CHECK_THROWS_WITH(plain.sum().backward(), Contains("does not require grad"));
  Tensor other = leaf({3}, 15);
  CHECK_THROWS_WITH(autograd::grad({mul(x, 2.0).sum()}, {other}),
                    Contains("not part of the graph"));
  CHECK(!autograd::grad({mul(x, 2.0).sum()}, {other}, {}, false, true)[0].defined());
  CHECK_THROWS_WITH(autograd::grad({mul(x, 2.0).sum()}, {plain}), Contains("does not require grad"));
  Tensor out = empty({3}, TensorOptions(DType::F64));
  CHECK_THROWS_WITH(mul_out(out, x, x), Contains("out= calls don't record gradients"));
  CHECK_THROWS_WITH(mul(x, 2.0).requires_grad_(false), Contains("detach()"));
}

TEST_CASE("a result saved for backward does not keep itself alive", "[engine]") {
  // exp, tanh, relu, softmax, ... save their result. Dropping the result
  // (a forward never run backward, as in an evaluation under grad mode) must
  // free the graph and the result's memory.
  Tensor x = leaf({1000}, 60);
  for (auto f : {+[](const Tensor& t) { return exp(t); }, +[](const Tensor& t) { return relu(t); },
                 +[](const Tensor& t) { return softmax(t, 0); }}) {
    Tensor y = f(x);
    Storage keep = y.storage();
    CHECK(keep->use_count() > 1);  // y, and the node's saved copy
    y = Tensor();
    CHECK(keep->use_count() == 1);  // only `keep`: the node and y are gone
  }
  // Backward still sees the saved result, and its in-place check.
  Tensor y = exp(x);
  Tensor z = y * 1.0;
  {
    NoGradGuard g;
    y.add_(full({}, 1.0, TensorOptions(DType::F64)));
  }
  CHECK_THROWS_WITH(z.sum().backward(), Catch::Contains("modified by an in-place op"));
}

TEST_CASE("the profiler tells backward ops from forward ones and times each node",
          "[engine]") {
  Tensor x = leaf({3}, 40), w = leaf({3}, 41);
  profiler::reset();
  profiler::enable(true);
  Tensor y = mul(x, w).sum();
  y.backward();
  profiler::enable(false);
  std::map<std::pair<std::string, bool>, uint64_t> calls;  // (op, backward) -> calls
  for (const profiler::Record& r : profiler::records()) calls[{r.op, r.backward}] += r.calls;
  profiler::reset();
  CHECK(calls[{"mul.Tensor", false}] == 1);  // the forward's
  CHECK(calls[{"mul.Tensor", true}] == 2);   // MulBackward's, one per input
  CHECK(calls[{"sum.dim_IntList", false}] == 1);
  CHECK(calls[{"MulBackward", true}] == 1);
  CHECK(calls[{"SumBackward", true}] == 1);
  CHECK(calls.count({"MulBackward", false}) == 0);
  CHECK_FALSE(profiler::in_backward());  // the scope ended with the pass
  // And in the table: a pass column.
  profiler::enable(true);
  mul(x, w).sum().backward();
  profiler::enable(false);
  std::string report = profiler::report();
  profiler::reset();
  CHECK_THAT(report, Catch::Matches("(.|\n)*\nmul\\.Tensor +cpu +backward +2 (.|\n)*"));
  CHECK_THAT(report, Catch::Matches("(.|\n)*\nmul\\.Tensor +cpu +forward +1 (.|\n)*"));
}

TEST_CASE("create_graph is refused with a clear error, before anything runs", "[engine]") {
  Tensor x = leaf({3}, 42);
  Tensor y = mul(x, x).sum();
  CHECK_THROWS_WITH(y.backward({}, false, true), Contains("create_graph") && Contains("not supported"));
  CHECK_THROWS_WITH(autograd::grad({y}, {x}, {}, true, false, true), Contains("create_graph"));
  y.backward();  // the graph is intact
  CHECK(values(x.grad()) == values(mul(x.detach(), 2.0)));
}
