// plexus::compile: capture, the agreement of two captures, replay against the
// same function run eagerly, guards, graph breaks and the printed graph.
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/autograd.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/ops_random.h"
#include "plexus/optim.h"
#include "plexus/profiler.h"
#include "plexus/random.h"
#include "simple_nn.h"
#include "support/error_of.h"

using namespace plexus;
using Catch::Contains;
using plexus::testing::error_of;

namespace {

Tensor random_tensor(std::initializer_list<int64_t> sizes, uint64_t seed) {
  Generator gen(seed);
  return randn(sizes, gen);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(a.to(DType::F64), b.to(DType::F64)))).item<double>();
}

// The largest difference relative to b's largest magnitude: float32 rounding
// differences (a fused chain, another summation order) grow over training
// steps, most in elements near zero.
double max_rel_diff(const Tensor& a, const Tensor& b) {
  Tensor x = a.to(DType::F64), y = b.to(DType::F64);
  return amax(abs(sub(x, y))).item<double>() / std::max(amax(abs(y)).item<double>(), 1e-30);
}

// The seed's model and a capturable Adam, built the same way from a seed.
struct Trainer {
  Generator gen;
  train::SimpleNN model;
  optim::Adam opt;
  explicit Trainer(uint64_t seed, bool capturable = true)
      : gen(seed),
        model(gen, Device()),
        opt(model.named_parameters(),
            {.lr = 1e-2,
             .capturable = capturable,
             // Not capturable: the per-tensor path, whose step counts are host numbers.
             .path = capturable ? optim::UpdatePath::List : optim::UpdatePath::PerTensor}) {}
  Tensor step(const Tensor& x, const Tensor& y) {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  }
};

}  // namespace

TEST_CASE("compile: replays an elementwise function once two captures agree", "[graph]") {
  int runs = 0;
  auto f = compile([&](const Tensor& x, const Tensor& y) {
    ++runs;
    return add(mul(x, y), 1.5);
  });
  for (int i = 0; i < 5; ++i) {
    Tensor x = random_tensor({3, 4}, 10 + i), y = random_tensor({3, 4}, 20 + i);
    Tensor got = f(x, y);
    Tensor want = add(mul(x, y), 1.5);
    CHECK(max_abs_diff(got, want) == 0);
  }
  // Calls 1 and 2 capture (and agree); 3, 4 and 5 replay without running the function.
  CHECK(runs == 2);
  CHECK(f.stats().captures == 2);
  CHECK(f.stats().replays == 3);
  REQUIRE(f.graph() != nullptr);
  CHECK(f.graph()->num_calls() == 2);
}

TEST_CASE("compile: a replay returns fresh tensors, not the plan's memory", "[graph]") {
  auto f = compile([](const Tensor& x) { return mul(x, 2.0); });
  std::vector<Tensor> results;
  for (int i = 0; i < 4; ++i) results.push_back(f(full({2}, double(i))));
  for (int i = 0; i < 4; ++i) CHECK(results[size_t(i)].tolist<float>() == std::vector<float>{2.0f * i, 2.0f * i});
}

TEST_CASE("compile: the seed's training step matches eager training", "[graph]") {
  Trainer eager(7), compiled(7);
  auto step = compile([&](const Tensor& x, const Tensor& y) { return compiled.step(x, y); },
                      {.names = compiled.model.named_parameters()});
  Generator data(3);
  for (int i = 0; i < 12; ++i) {
    Tensor x = randn({32, 10}, data), y = randn({32, 1}, data);
    Tensor want = eager.step(x, y);
    Tensor got = step(x, y);
    INFO("step " << i);
    CHECK(max_rel_diff(got, want) < 1e-5);
  }
  CHECK(step.stats().replays >= 8);
  CHECK(step.stats().eager_calls == 0);
  auto pe = eager.model.named_parameters(), pc = compiled.model.named_parameters();
  for (size_t k = 0; k < pe.size(); ++k) {
    INFO(pe[k].first);
    CHECK(max_rel_diff(pc[k].second, pe[k].second) < 1e-5);
    // The gradients the replay set are the step's gradients.
    REQUIRE(pc[k].second.grad().defined());
    CHECK(max_rel_diff(pc[k].second.grad(), pe[k].second.grad()) < 1e-4);
  }
  CHECK(compiled.opt.steps("fc1.weight") == 12);
}

TEST_CASE("trace: a training step's graph without running kernels leaves the model as it was",
          "[graph]") {
  Trainer traced(7), fresh(7), with_kernels(7);
  Generator data(3);
  Tensor x = randn({32, 10}, data), y = randn({32, 1}, data);
  auto step_of = [](Trainer& t) {
    return [&t](std::span<const Tensor> in) { return std::vector<Tensor>{t.step(in[0], in[1])}; };
  };
  const std::vector<Tensor> in = {x, y};
  graph::Graph g = trace(step_of(traced), in);
  graph::Graph full = trace(step_of(with_kernels), in, {.run_kernels = true});
  // The same ops, arguments and shapes as a capture that ran its kernels.
  CHECK(g.num_calls() == full.num_calls());
  CHECK(g.str() == full.str());
  CHECK_THAT(g.str(), Contains("addmm") && Contains("threshold_backward"));
  // Nothing was computed: parameters and optimizer state as before, no
  // gradients; then training gives what a fresh model's training gives.
  auto pt = traced.model.named_parameters(), pf = fresh.model.named_parameters();
  for (size_t k = 0; k < pt.size(); ++k) {
    INFO(pt[k].first);
    CHECK(max_abs_diff(pt[k].second, pf[k].second) == 0);
    CHECK_FALSE(pt[k].second.grad().defined());
  }
  for (int i = 0; i < 3; ++i) {
    Tensor a = randn({32, 10}, data), b = randn({32, 1}, data);
    INFO("step " << i);
    CHECK(max_abs_diff(traced.step(a, b), fresh.step(a, b)) == 0);
  }
}

TEST_CASE("trace: in-place writes do not happen; factories keep their values", "[graph]") {
  Tensor x = tensor<float>({1, 2, 3}, {3});
  Tensor made;
  graph::Graph g = trace(
      [&](std::span<const Tensor> in) {
        in[0].mul_(wrapped_scalar(10.0));
        made = zeros({4});
        made.fill_(2.5);
        return std::vector<Tensor>{add(in[0], 1.0)};
      },
      std::vector<Tensor>{x});
  CHECK(x.tolist<float>() == std::vector<float>{1, 2, 3});
  CHECK(made.tolist<float>() == std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
  CHECK(g.num_calls() >= 2);
  CHECK_THAT(g.str(), Contains("mul_") && Contains("add"));
  // A host read breaks the graph: trace says where.
  Error e = error_of([&] {
    (void)trace(
        [](std::span<const Tensor> in) {
          (void)sum(in[0]).item<float>();
          return std::vector<Tensor>{in[0]};
        },
        std::vector<Tensor>{x});
  });
  CHECK(e.code() == ErrorCode::Unsupported);
  CHECK_THAT(e.what(), Contains("trace: the graph breaks") && Contains("item()"));
}

TEST_CASE("compile: ops on constants run once at compile time", "[graph]") {
  // A table made on the host in every call, transformed, then used: the
  // transforms are folded into a constant; only the add replays.
  auto body = [](const Tensor& x) {
    Tensor table = tensor<float>({1, 2, 3, 4, 5, 6, 7}, {7});
    Tensor scaled = mul(exp(neg(table)), 0.5);
    return add(x, scaled);
  };
  auto f = compile(body);
  profiler::reset();
  profiler::enable(true);
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({3, 7}, uint64_t(i));
    CHECK(max_abs_diff(f(x), body(x)) == 0);
  }
  profiler::enable(false);
  REQUIRE(f.graph() != nullptr);
  CHECK(f.graph()->num_calls() == 1);
  CHECK(f.stats().replays == 2);
  uint64_t folded_ops_replayed = 0, adds = 0;
  for (const profiler::Record& r : profiler::records()) {
    if (r.op == "compiled exp.out" || r.op == "compiled neg.out" || r.op == "compiled mul.out")
      folded_ops_replayed += r.calls;
    if (r.op.rfind("compiled add", 0) == 0) adds += r.calls;
  }
  CHECK(folded_ops_replayed == 0);
  CHECK(adds == 2);
  profiler::reset();
  // A constant some op writes stays an op: the write must happen every call.
  auto g = compile([](const Tensor& x) {
    Tensor t = tensor<float>({1, 2, 3}, {3});
    Tensor u = mul(t, 2.0);
    u.add_(x);
    return u;
  });
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({3}, uint64_t(10 + i));
    CHECK(max_abs_diff(g(x), add(mul(tensor<float>({1, 2, 3}, {3}), 2.0), x)) == 0);
  }
  CHECK(g.stats().replays == 2);
  CHECK(g.graph()->num_calls() == 2);
}

TEST_CASE("compile: random draws replay with the generator's next positions, as eager", "[graph]") {
  // Two draws from one generator per call; the compiled function and the
  // eager one start from generators of the same seed and must draw the same.
  auto body = [](const Tensor& x, Generator& g) {
    Tensor u = empty({x.size(0), x.size(1)});
    uniform_(u, -1, 1, g);
    Tensor m = empty({x.size(0), x.size(1)});
    bernoulli_(m, 0.3, g);
    return add(mul(x, u), m);
  };
  Generator ge(11), gc(11);
  auto f = compile([&](const Tensor& x) { return body(x, gc); });
  for (int i = 0; i < 6; ++i) {
    Tensor x = random_tensor({5, 7}, uint64_t(i));
    INFO("call " << i);
    CHECK(max_abs_diff(f(x), body(x, ge)) == 0);
    CHECK(gc.offset() == ge.offset());
  }
  CHECK(f.stats().replays == 4);
  REQUIRE(f.graph() != nullptr);
  REQUIRE(f.graph()->generators.size() == 1);
  CHECK(f.graph()->generators[0].drawn == 70);
  CHECK_THAT(f.graph()->str(), Contains("generator_0.offset + 35"));
  // Reseeding restarts the stream the replays draw from.
  gc.manual_seed(11);
  ge.manual_seed(11);
  Tensor x = random_tensor({5, 7}, 99);
  CHECK(max_abs_diff(f(x), body(x, ge)) == 0);
}

TEST_CASE("compile: two generators handing out one offset before it is used run eagerly",
          "[graph]") {
  // Both draws come before the ops: the capture cannot tell which offset is
  // whose, so the function runs eagerly (and right) rather than guess.
  auto body = [](const Tensor& x, Generator& a, Generator& b) {
    const uint64_t oa = a.advance(7), ob = b.advance(7);
    Tensor u = empty({7});
    uniform_(u, 0, 1, a.seed(), oa);
    Tensor v = empty({7});
    uniform_(v, 0, 1, b.seed(), ob);
    return add(add(x, u), v);
  };
  Generator a1(1), b1(2), a2(1), b2(2);
  auto f = compile([&](const Tensor& x) { return body(x, a1, b1); });
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({7}, uint64_t(i));
    CHECK(max_abs_diff(f(x), body(x, a2, b2)) == 0);
  }
  CHECK(f.stats().replays == 0);
  CHECK_THAT(f.compiled().eager_reason(), Contains("two random generators"));
}

TEST_CASE("compile: a training step with Dropout replays and matches eager", "[graph]") {
  struct Net {
    Generator gen;
    std::shared_ptr<nn::Sequential> seq = std::make_shared<nn::Sequential>();
    std::unique_ptr<optim::Adam> opt;
    explicit Net(uint64_t seed) : gen(seed) {
      seq->add(nn::make<nn::Linear>(10, 16, gen));
      seq->add(std::make_shared<nn::ReLU>());
      seq->add(std::make_shared<nn::Dropout>(0.25, gen));
      seq->add(nn::make<nn::Linear>(16, 1, gen));
      opt = std::make_unique<optim::Adam>(seq->named_parameters(),
                                          optim::AdamOptions{.lr = 1e-2, .capturable = true});
    }
    Tensor step(const Tensor& x, const Tensor& y) {
      Tensor loss = mse_loss(seq->forward(x), y);
      opt->zero_grad();
      loss.backward();
      opt->step();
      return loss;
    }
  };
  Net eager(4), compiled(4);
  auto step = compile([&](const Tensor& x, const Tensor& y) { return compiled.step(x, y); });
  Generator data(8);
  for (int i = 0; i < 8; ++i) {
    Tensor x = randn({32, 10}, data), y = randn({32, 1}, data);
    INFO("step " << i);
    CHECK(max_rel_diff(step(x, y), eager.step(x, y)) < 1e-5);
  }
  CHECK(step.stats().replays >= 4);
  CHECK(step.stats().eager_calls == 0);
  auto pe = eager.seq->named_parameters(), pc = compiled.seq->named_parameters();
  for (size_t k = 0; k < pe.size(); ++k) {
    INFO(pe[k].first);
    CHECK(max_rel_diff(pc[k].second, pe[k].second) < 1e-5);
  }
}

TEST_CASE("compile: a changed learning rate reaches the replay without capturing again",
          "[graph]") {
  Trainer eager(11), compiled(11);
  auto step = compile([&](const Tensor& x, const Tensor& y) { return compiled.step(x, y); });
  Generator data(5);
  for (int i = 0; i < 10; ++i) {
    if (i == 6) {
      eager.opt.set_lr(3e-3);
      compiled.opt.set_lr(3e-3);
    }
    Tensor x = randn({16, 10}, data), y = randn({16, 1}, data);
    Tensor want = eager.step(x, y);
    Tensor got = step(x, y);
    CHECK(max_rel_diff(got, want) < 1e-5);
  }
  CHECK(step.stats().captures == 3);  // Adam's state is made in call 1: calls 2 and 3 agree
  CHECK(step.stats().recaptures == 0);
  CHECK(max_rel_diff(compiled.model.fc1->weight, eager.model.fc1->weight) < 1e-5);
}

TEST_CASE("compile: host numbers that change every call keep the function eager, and say why",
          "[graph]") {
  Trainer eager(13, /*capturable=*/false), compiled(13, /*capturable=*/false);
  auto step = compile([&](const Tensor& x, const Tensor& y) { return compiled.step(x, y); });
  Generator data(9);
  for (int i = 0; i < 8; ++i) {
    Tensor x = randn({8, 10}, data), y = randn({8, 1}, data);
    Tensor want = eager.step(x, y);
    CHECK(max_abs_diff(step(x, y), want) == 0);
  }
  CHECK(step.stats().replays == 0);
  CHECK(step.stats().eager_calls > 0);
  CHECK_THAT(step.compiled().eager_reason(), Contains("changed in each of"));
  CHECK_THAT(step.compiled().eager_reason(), Contains("in one call and"));
}

TEST_CASE("compile: a host read during capture breaks the graph; results stay right",
          "[graph]") {
  auto f = compile([](const Tensor& x) {
    Tensor s = sum(x);
    return s.item<double>() > 0 ? mul(x, 2.0) : mul(x, -1.0);
  });
  for (double v : {1.0, -1.0, 2.0, -3.0}) {
    Tensor x = full({3}, v);
    Tensor want = v > 0 ? mul(x, 2.0) : mul(x, -1.0);
    CHECK(max_abs_diff(f(x), want) == 0);
  }
  CHECK(f.stats().replays == 0);
  CHECK_THAT(f.compiled().eager_reason(), Contains("item()"));
}

TEST_CASE("compile: a new input shape captures again; the old one stays compiled", "[graph]") {
  auto f = compile([](const Tensor& x) { return relu(sub(x, 0.25)); });
  for (int round = 0; round < 3; ++round)
    for (int64_t n : {4, 7}) {
      Tensor x = random_tensor({n}, uint64_t(n + round));
      CHECK(max_abs_diff(f(x), relu(sub(x, 0.25))) == 0);
    }
  CHECK(f.stats().recaptures == 1);  // the second signature
  CHECK(f.stats().captures == 4);    // two per signature
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: in-place writes into an input reach the caller's tensor", "[graph]") {
  auto f = compile([](const Tensor& x) {
    x.mul_(wrapped_scalar(3.0));
    return add(x, 1.0);
  });
  for (int i = 0; i < 4; ++i) {
    Tensor x = full({2, 2}, double(i + 1));
    Tensor r = f(x);
    CHECK(x.tolist<float>() == std::vector<float>(4, 3.0f * (i + 1)));
    CHECK(r.tolist<float>() == std::vector<float>(4, 3.0f * (i + 1) + 1));
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: the backend sees the graph, printed as torch.fx's table", "[graph]") {
  Trainer t(17);
  std::vector<std::string> printed;
  auto step = compile([&](const Tensor& x, const Tensor& y) { return t.step(x, y); },
                      {.backend = [&](const graph::Graph& g) { printed.push_back(g.str()); },
                       .names = t.model.named_parameters()});
  Generator data(1);
  for (int i = 0; i < 5; ++i) step(randn({4, 10}, data), randn({4, 1}, data));
  REQUIRE(printed.size() == 1);
  const std::string& table = printed[0];
  CHECK_THAT(table, Contains("opcode"));
  CHECK_THAT(table, Contains("placeholder"));
  CHECK_THAT(table, Contains("get_attr"));
  CHECK_THAT(table, Contains("fc1.weight"));
  CHECK_THAT(table, Contains("call_function"));
  CHECK_THAT(table, Contains("adam_step_"));  // Adam's update, one list call
  CHECK_THAT(table, Contains("set_grad"));
  CHECK_THAT(table, Contains("output"));
}

TEST_CASE("compile: a compiled function called inside another capture runs plainly",
          "[graph]") {
  auto inner = compile([](const Tensor& x) { return mul(x, 3.0); });
  auto outer = compile([&](const Tensor& x) { return add(inner(x), 1.0); });
  for (int i = 0; i < 4; ++i) {
    Tensor x = full({2}, double(i));
    CHECK(outer(x).tolist<float>() == std::vector<float>(2, 3.0f * i + 1));
  }
  CHECK(outer.stats().replays == 2);
  REQUIRE(outer.graph() != nullptr);
  CHECK(outer.graph()->num_calls() == 2);
}

TEST_CASE("compile: bad options are refused", "[graph]") {
  CHECK_THROWS_WITH(compile([](const Tensor& x) { return x; }, {.max_captures = 1}),
                    Contains("max_captures"));
}

// ---- Passes -------------------------------------------------------------------

namespace {
// The graph compile() compiled, as its backend saw it.
struct Seen {
  std::vector<std::string> tables;
  size_t calls = 0, launches = 0;
  CompileOptions options() {
    return {.backend = [this](const graph::Graph& g) {
      tables.push_back(g.str());
      calls = g.num_calls();
      launches = g.num_launches();
    }};
  }
};
}  // namespace

TEST_CASE("compile: repeated pure ops run once, unread ones not at all", "[graph]") {
  Seen seen;
  auto f = compile(
      [](const Tensor& x) {
        (void)exp(x);                             // nobody reads it
        Tensor m = matmul(x, x);                  // not elementwise: stays a call
        return add(matmul(x, x), m);              // the same product again
      },
      seen.options());
  for (int i = 0; i < 3; ++i) {
    Tensor x = random_tensor({4, 4}, uint64_t(i));
    CHECK(max_abs_diff(f(x), add(matmul(x, x), matmul(x, x))) == 0);
  }
  REQUIRE(seen.tables.size() == 1);
  INFO(seen.tables[0]);
  CHECK(seen.calls == 2);  // one mm, one add
  CHECK_THAT(seen.tables[0], !Contains("exp"));
}

TEST_CASE("compile: an elementwise chain becomes one fused node with the eager result",
          "[graph]") {
  Seen seen;
  auto chain = [](const Tensor& x, const Tensor& b) {
    Tensor y = mul(add(x, b), 0.5);          // b broadcasts over rows
    Tensor z = sigmoid(sub(y, tanh(x)));
    return div(add(z, sqrt(abs(x))), add(exp(neg(abs(y))), 1.0));
  };
  auto f = compile(chain, seen.options());
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({64, 33}, uint64_t(i)), b = random_tensor({33}, uint64_t(50 + i));
    CHECK(max_abs_diff(f(x, b), chain(x, b)) == 0);
  }
  REQUIRE(seen.tables.size() == 1);
  INFO(seen.tables[0]);
  CHECK(seen.launches == 1);
  CHECK_THAT(seen.tables[0], Contains("call_fused"));
}

TEST_CASE("compile: fusion keeps the order of writes and reads around other ops", "[graph]") {
  auto body = [](const Tensor& x, const Tensor& w) {
    Tensor y = mul(x, 2.0);
    Tensor s = sum(y);             // not fusable: reads y before x changes
    x.add_(wrapped_scalar(1.0));   // in place into an input
    Tensor z = add(mul(y, s), x);  // reads the new x
    w.mul_(z.sum());               // another input, scaled by a reduction of z
    return add(z, w.mean());
  };
  auto f = compile(body);
  for (int i = 0; i < 4; ++i) {
    Tensor x1 = random_tensor({8, 5}, uint64_t(i)), w1 = random_tensor({3}, uint64_t(9 + i));
    Tensor x2 = x1.clone(), w2 = w1.clone();
    Tensor got = f(x1, w1), want = body(x2, w2);
    CHECK(max_abs_diff(got, want) == 0);
    CHECK(max_abs_diff(x1, x2) == 0);
    CHECK(max_abs_diff(w1, w2) == 0);
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: reads around an op that writes several tensors keep their order",
          "[graph]") {
  // adam_step_ writes self, exp_avg, exp_avg_sq and step (Note [Ops that write
  // several tensors]): a fused chain must not carry a read of exp_avg across
  // it, nor CSE merge a read of exp_avg_sq before it with the same read after.
  auto body = [](const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v,
                 const Tensor& step, const Tensor& lr) {
    Tensor before = mul(m, 2.0);
    Tensor root_before = sqrt(v);
    adam_step_(p, g, m, v, step, lr);
    Tensor after = add(m, 1.0);
    Tensor root_after = sqrt(v);
    return add(add(before, after), sub(root_after, root_before));
  };
  auto f = compile(body);
  for (int i = 0; i < 4; ++i) {
    Tensor p1 = random_tensor({8, 5}, uint64_t(i)), g = random_tensor({8, 5}, uint64_t(20 + i));
    Tensor m1 = random_tensor({8, 5}, uint64_t(40 + i));
    Tensor v1 = abs(random_tensor({8, 5}, uint64_t(60 + i))), s1 = full({}, 3.0);
    Tensor p2 = p1.clone(), m2 = m1.clone(), v2 = v1.clone(), s2 = s1.clone();
    Tensor lr = full({}, 0.1);
    Tensor got = f(p1, g, m1, v1, s1, lr), want = body(p2, g, m2, v2, s2, lr);
    CHECK(max_abs_diff(got, want) == 0);
    CHECK(max_abs_diff(p1, p2) == 0);
    CHECK(max_abs_diff(m1, m2) == 0);
    CHECK(max_abs_diff(v1, v2) == 0);
    CHECK(s1.item<double>() == 4);
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("compile: random elementwise chains match eager exactly", "[graph]") {
  // Chains of 3 to 12 ops over a [17, 40] input, a row, a column and a C++
  // number; in-place ops write into the chain's own intermediates.
  for (uint64_t seed = 0; seed < 25; ++seed) {
    Generator pick(seed);
    std::vector<int> program;
    int length = 3 + static_cast<int>(randperm(10, pick)[0]);
    for (int i = 0; i < length; ++i) program.push_back(static_cast<int>(randperm(9, pick)[0]));
    auto body = [program](const Tensor& x, const Tensor& row, const Tensor& col) {
      Tensor v = x;
      Tensor acc = mul(x, 1.0);
      for (int op : program) {
        switch (op) {
          case 0: v = add(v, row, 0.5); break;
          case 1: v = mul(v, col); break;
          case 2: v = tanh(v); break;
          case 3: v = sub(v, 0.25); break;
          case 4: v = sigmoid(v); break;
          case 5: acc.add_(v); break;
          case 6: v = div(v, add(abs(col), 1.0)); break;
          case 7: acc.lerp_(v, 0.3); break;
          default: v = relu(v); break;
        }
      }
      return add(v, acc);
    };
    auto f = compile(body);
    for (int i = 0; i < 3; ++i) {
      Tensor x = random_tensor({17, 40}, seed * 10 + uint64_t(i));
      Tensor row = random_tensor({40}, seed * 10 + 3 + uint64_t(i));
      Tensor col = random_tensor({17, 1}, seed * 10 + 6 + uint64_t(i));
      INFO("seed " << seed << " call " << i);
      CHECK(max_abs_diff(f(x, row, col), body(x, row, col)) == 0);
    }
    CHECK(f.stats().replays == 1);
  }
}

TEST_CASE("compile: the profiler shows what a replay runs", "[graph]") {
  // The cpu plugin compiles the product and its epilogue as one chain
  // (plugin ABI 1.1); without plugin compilers the host runs the product,
  // then the rest as its own chain.
  const bool plugin = GENERATE(true, false);
  auto f = compile([](const Tensor& a, const Tensor& b) { return relu(add(mm(a, b), 1.0)); },
                   {.plugin_compilers = plugin});
  Tensor a = random_tensor({4, 3}, 1), b = random_tensor({3, 5}, 2);
  for (int i = 0; i < 2; ++i) f(a, b);  // the captures
  profiler::reset();
  profiler::enable(true);
  for (int i = 0; i < 3; ++i) CHECK(max_abs_diff(f(a, b), relu(add(mm(a, b), 1.0))) == 0);
  profiler::enable(false);
  uint64_t mm_calls = 0, fused_calls = 0;
  for (const profiler::Record& r : profiler::records()) {
    if (r.op == "compiled mm.out") mm_calls = r.calls;
    if (r.op == "compiled plugin fused(mm, add, relu)" || r.op == "compiled fused(add, relu)")
      fused_calls = r.calls;
  }
  CHECK(mm_calls == (plugin ? 0 : 3));
  CHECK(fused_calls == 3);
  profiler::reset();
}

TEST_CASE("compile: verify_every catches host state that changes what the function does",
          "[graph]") {
  int calls = 0;
  auto body = [&calls](const Tensor& x) { return ++calls <= 5 ? mul(x, 2.0) : mul(x, 3.0); };
  auto f = compile(body, {.verify_every = 2});
  for (int i = 0; i < 14; ++i) {
    Tensor x = full({2}, 1.0);
    std::vector<float> got = f(x).tolist<float>();
    // Calls 1-2 capture; then replays alternate with verifying captures, which
    // run the function: its counter passes 5 on the 4th verification, and from
    // then on it runs eagerly and multiplies by 3.
    if (calls >= 6) {
      INFO("call " << i);
      CHECK(got == std::vector<float>(2, 3.0f));
    }
  }
  CHECK(f.stats().replays == 4);
  CHECK_THAT(f.compiled().eager_reason(), Contains("verifying capture differs"));
}

TEST_CASE("compile: large inputs are read in place and large results handed over", "[graph]") {
  // 256 KiB and more: the plan points its views at the caller's memory instead
  // of copying, and gives each result new memory instead of copying it out.
  auto body = [](const Tensor& x, const Tensor& w) {
    Tensor y = add(mul(x, 2.0), w);  // [128, 1024]: 512 KiB
    x.sub_(wrapped_scalar(1.0));     // in place into a large input
    return std::vector<Tensor>{y, sum(y, std::vector<int64_t>{1})};
  };
  auto f = compile(body);
  Tensor big = random_tensor({300, 1024}, 7);
  std::vector<Tensor> kept;
  for (int i = 0; i < 5; ++i) {
    // A new place in a larger tensor each call: same signature, other offset.
    Tensor x = big.narrow(0, 10 * i, 128), w = random_tensor({1024}, uint64_t(20 + i));
    Tensor x_eager = x.clone();
    std::vector<Tensor> want = body(x_eager, w);
    std::vector<Tensor> got = f(x, w);
    INFO("call " << i);
    CHECK(max_abs_diff(got[0], want[0]) == 0);
    CHECK(max_abs_diff(got[1], want[1]) == 0);
    CHECK(max_abs_diff(x, x_eager) == 0);  // the in-place write reached the caller's rows
    kept.push_back(got[0]);
  }
  CHECK(f.stats().replays == 3);
  // Each call's result is its own memory: later replays did not overwrite it.
  for (size_t i = 1; i < kept.size(); ++i)
    CHECK(kept[i].storage().get() != kept[i - 1].storage().get());
}

TEST_CASE("compile: the cpu plugin's graph compiler and the host's chains agree bit for bit",
          "[graph]") {
  auto body = [](const Tensor& x, const Tensor& m, const Tensor& v) {
    Tensor g = mul(tanh(x), sigmoid(add(x, 0.5)));
    m.lerp_(g, 0.1);
    v.mul_(wrapped_scalar(0.99));
    v.addcmul_(g, g, 0.01);
    return div(m, add(sqrt(v), 1e-8));
  };
  auto plugin = compile(body);
  auto host = compile(body, {.plugin_compilers = false});
  Tensor m1 = zeros({37, 19}), v1 = zeros({37, 19}), m2 = zeros({37, 19}), v2 = zeros({37, 19});
  for (int i = 0; i < 5; ++i) {
    Tensor x = random_tensor({37, 19}, uint64_t(i));
    CHECK(max_abs_diff(plugin(x, m1, v1), host(x, m2, v2)) == 0);
  }
  CHECK(max_abs_diff(m1, m2) == 0);
  CHECK(max_abs_diff(v1, v2) == 0);
  REQUIRE(plugin.graph() != nullptr);
  CHECK(plugin.stats().replays == 3);
  CHECK(host.stats().replays == 3);
}

TEST_CASE("compile: a matrix product and its elementwise epilogue run as one chain", "[graph]") {
  // Linear + relu with a 1-D bias and a transposed weight, a product whose
  // result is also returned, and a gradient mask reading another tensor: the
  // cpu plugin's compiled chain, and the host's split (product, then chain),
  // both equal the eager kernels bit for bit.
  auto body = [](const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g) {
    Tensor h = relu(addmm(b, x, w.t()));
    Tensor p = mm(g, w);
    Tensor masked = threshold_backward(mul(p, 2.0), h.narrow(1, 0, 10), 0.0);
    return std::vector<Tensor>{h, p, masked};
  };
  const bool plugin = GENERATE(true, false);
  auto f = compile(body, {.plugin_compilers = plugin});
  Tensor w = random_tensor({16, 10}, 1), b = random_tensor({16}, 2);
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({8, 10}, 10 + uint64_t(i)), g = random_tensor({8, 16}, 20 + uint64_t(i));
    std::vector<Tensor> got = f(x, w, b, g), want = body(x, w, b, g);
    for (size_t k = 0; k < want.size(); ++k) {
      INFO("call " << i << ", result " << k);
      CHECK(max_abs_diff(got[k], want[k]) == 0);
    }
  }
  REQUIRE(f.graph() != nullptr);
  std::string table = f.graph()->str();
  CHECK_THAT(table, Contains("fused(addmm, relu)") && Contains("fused(mm, mul, threshold_backward)"));
}

TEST_CASE("compile: an epilogue that writes the product's result in place stores it", "[graph]") {
  auto body = [](const Tensor& x, const Tensor& w) {
    Tensor h = mm(x, w);
    h.mul_(wrapped_scalar(2.0));
    relu_(h);
    return h;
  };
  const bool plugin = GENERATE(true, false);
  auto f = compile(body, {.plugin_compilers = plugin});
  Tensor w = random_tensor({6, 7}, 3);
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({5, 6}, 70 + uint64_t(i));
    CHECK(max_abs_diff(f(x, w), body(x, w)) == 0);
  }
  REQUIRE(f.graph() != nullptr);
  CHECK_THAT(f.graph()->str(), Contains("fused(mm, mul_, relu_)"));
}

TEST_CASE("compile: a chain reads its own results only through the view that made them",
          "[graph]") {
  // A transpose of a square result has the chain's shape, but element i of it
  // is not element i: that op starts a chain of its own.
  auto body = [](const Tensor& x, const Tensor& y) { return add(mul(x, y).t(), y); };
  auto f = compile(body);
  for (int i = 0; i < 4; ++i) {
    Tensor x = random_tensor({5, 5}, 30 + uint64_t(i)), y = random_tensor({5, 5}, 40 + uint64_t(i));
    CHECK(max_abs_diff(f(x, y), body(x, y)) == 0);
  }
  CHECK(f.stats().replays == 2);
}
