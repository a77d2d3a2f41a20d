// The three update paths of Adam, AdamW and SGD (UpdatePath: per tensor in
// catalog ops, one list call, one fused call per parameter) give the same
// parameters and state as each other and as PyTorch's formulas in double;
// the fused step's composite and its cpu kernel agree; the list step replays
// under plexus::compile.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <type_traits>

#include "plexus/autograd.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/random.h"

using namespace plexus;
using Catch::Contains;
using optim::UpdatePath;

namespace {

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(a.to(DType::F64), b.to(DType::F64)))).item<double>();
}

// Parameters of the seed model's shapes (10 -> 64 -> 32 -> 1), seeded.
optim::NamedParameters make_params(DType dtype, uint64_t seed = 5) {
  Generator gen(seed);
  optim::NamedParameters ps;
  const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
      {"fc1.weight", {64, 10}}, {"fc1.bias", {64}},   {"fc2.weight", {32, 64}},
      {"fc2.bias", {32}},       {"fc3.weight", {1, 32}}, {"fc3.bias", {1}}};
  for (const auto& [name, sizes] : shapes) {
    Tensor p = randn(sizes, gen).to(dtype);
    p.requires_grad_();
    ps.emplace_back(name, p);
  }
  return ps;
}

// `steps` updates with the same seeded gradients; returns the optimizer.
template <typename Opt, typename Options>
std::unique_ptr<Opt> train(optim::NamedParameters ps, Options o, int steps) {
  auto opt = std::make_unique<Opt>(ps, o);
  Generator gen(11);
  for (int s = 0; s < steps; ++s) {
    for (const auto& [name, p] : ps) p.set_grad(randn(p.sizes(), gen).to(p.dtype()));
    opt->step();
  }
  return opt;
}

// Parameters and every state tensor the paths share agree within `tol`.
void check_same(const optim::Optimizer& a, const optim::Optimizer& b, double tol) {
  for (size_t k = 0; k < a.parameters().size(); ++k) {
    INFO(a.parameters()[k].first);
    CHECK(max_abs_diff(a.parameters()[k].second, b.parameters()[k].second) <= tol);
  }
  auto sa = a.state_dict(), sb = b.state_dict();
  for (const auto& [key, t] : sa) {
    if (key.ends_with(".step") || !sb.contains(key)) continue;
    INFO(key);
    CHECK(max_abs_diff(t, sb.at(key)) <= tol);
  }
}

const UpdatePath kPaths[] = {UpdatePath::PerTensor, UpdatePath::List, UpdatePath::Fused};

}  // namespace

TEST_CASE("Adam and AdamW: the three paths agree in float32 over 20 steps", "[optim]") {
  for (bool decoupled : {false, true}) {
    INFO("decoupled " << decoupled);
    optim::AdamOptions o{.lr = 1e-2, .weight_decay = 0.01, .decoupled_weight_decay = decoupled};
    o.path = UpdatePath::PerTensor;
    auto base = train<optim::Adam>(make_params(DType::F32), o, 20);
    for (UpdatePath path : {UpdatePath::List, UpdatePath::Fused}) {
      o.path = path;
      auto other = train<optim::Adam>(make_params(DType::F32), o, 20);
      // A few float32 ULPs of the parameters' size (~1) per step: the paths
      // round the same formula in a different order.
      check_same(*base, *other, 2e-5);
      CHECK(other->steps("fc1.weight") == 20);
    }
    // List and Fused run the same kernel: bit for bit.
    o.path = UpdatePath::List;
    auto list = train<optim::Adam>(make_params(DType::F32), o, 20);
    o.path = UpdatePath::Fused;
    auto fused = train<optim::Adam>(make_params(DType::F32), o, 20);
    check_same(*list, *fused, 0);
  }
}

TEST_CASE("Adam: every path follows PyTorch's formulas in float64", "[optim]") {
  for (UpdatePath path : kPaths) {
    Tensor p = tensor<double>({1.0, -2.0, 0.5});
    p.requires_grad_();
    optim::AdamOptions o{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-6, .weight_decay = 0.01,
                         .decoupled_weight_decay = true, .path = path};
    optim::Adam opt({{"w", p}}, o);
    std::vector<double> ref = {1.0, -2.0, 0.5}, m(3, 0), v(3, 0);
    const std::vector<std::vector<double>> grads = {{0.3, -1, 2}, {0.1, 0.2, -0.3}, {1, 1, 1}};
    for (size_t t = 1; t <= grads.size(); ++t) {
      p.set_grad(tensor<double>({grads[t - 1][0], grads[t - 1][1], grads[t - 1][2]}));
      opt.step();
      for (size_t i = 0; i < 3; ++i) {
        double g = grads[t - 1][i];
        ref[i] *= 1 - o.lr * o.weight_decay;
        m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
        v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
        double denom = std::sqrt(v[i]) / std::sqrt(1 - std::pow(o.beta2, double(t))) + o.eps;
        ref[i] -= o.lr / (1 - std::pow(o.beta1, double(t))) * m[i] / denom;
      }
    }
    std::vector<double> got = p.detach().tolist<double>();
    for (size_t i = 0; i < 3; ++i) CHECK(got[i] == Approx(ref[i]).epsilon(1e-12));
    CHECK(opt.steps("w") == 3);
  }
}

TEST_CASE("SGD: the three paths agree, with momentum, nesterov and weight decay", "[optim]") {
  optim::SGDOptions o{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true};
  o.path = UpdatePath::PerTensor;
  auto base = train<optim::SGD>(make_params(DType::F32), o, 10);
  for (UpdatePath path : {UpdatePath::List, UpdatePath::Fused}) {
    o.path = path;
    check_same(*base, *train<optim::SGD>(make_params(DType::F32), o, 10), 1e-5);
  }
  optim::SGDOptions plain{.lr = 0.1};
  plain.path = UpdatePath::PerTensor;
  auto plain_base = train<optim::SGD>(make_params(DType::F32), plain, 5);
  plain.path = UpdatePath::List;
  check_same(*plain_base, *train<optim::SGD>(make_params(DType::F32), plain, 5), 1e-6);
}

TEST_CASE("adam_step_: non-contiguous parameters run the composite and agree", "[optim]") {
  auto run = [](bool transposed) {
    Generator g2(3);
    Tensor p = randn({6, 4}, g2), g = randn({6, 4}, g2);
    Tensor m = zeros({6, 4}), v = zeros({6, 4}), step = zeros({}), lr = full({}, 0.01);
    if (transposed) {
      p = p.t().contiguous().t();
      g = g.t().contiguous().t();
      m = m.t().contiguous().t();
      v = v.t().contiguous().t();
    }
    for (int k = 0; k < 3; ++k) adam_step_(p, g, m, v, step, lr, {.weight_decay = 0.1});
    CHECK(step.item<double>() == 3);
    return p.contiguous();
  };
  CHECK(max_abs_diff(run(true), run(false)) <= 1e-6);
}

TEST_CASE("adam_step_ refuses mismatched tensors, naming them", "[optim]") {
  Tensor p = zeros({4}), g = zeros({5}), m = zeros({4}), v = zeros({4});
  CHECK_THROWS_WITH(adam_step_(p, g, m, v, zeros({}), full({}, 0.1)), Contains("grad"));
  CHECK_THROWS_WITH(adam_step_(p, zeros({4}), m, v, zeros({2}), full({}, 0.1)),
                    Contains("step must be a 0-d"));
  Tensor ps[] = {p, p}, gs[] = {zeros({4})};
  CHECK_THROWS_WITH(adam_step_(ps, gs, ps, ps, ps, full({}, 0.1)), Contains("has 1 tensors"));
  CHECK_THROWS_WITH(adam_step_(p, zeros({4}), p, v, zeros({}), full({}, 0.1)),
                    Contains("must not share memory"));
}

TEST_CASE("compile: a training step with the list path replays without recapture", "[optim]") {
  optim::NamedParameters ps = make_params(DType::F32);
  optim::NamedParameters eager_ps = make_params(DType::F32);
  optim::Adam opt(ps, {.lr = 1e-2});
  optim::Adam eager(eager_ps, {.lr = 1e-2});
  auto step = compile([&](const Tensor& g) {
    for (const auto& [name, p] : ps) p.set_grad(mul(ones(p.sizes()), g));
    opt.step();
    return ps.front().second;
  });
  for (int s = 0; s < 6; ++s) {
    Tensor g = full({}, 0.1 * (s + 1));
    step(g);
    for (const auto& [name, p] : eager_ps) p.set_grad(mul(ones(p.sizes()), g));
    eager.step();
  }
  CHECK(step.stats().replays > 0);
  CHECK(step.stats().recaptures == 0);
  CHECK(max_abs_diff(ps.front().second, eager_ps.front().second) <= 1e-6);
  CHECK(opt.steps("fc1.weight") == 6);
}

namespace {

// `n` steps of `opt` with gradients drawn from gen.
void run_steps(optim::Optimizer& opt, Generator& gen, int n) {
  for (int s = 0; s < n; ++s) {
    for (const auto& [name, p] : opt.parameters())
      p.set_grad(randn(p.sizes(), gen).to(p.dtype()));
    opt.step();
  }
}

// 10 steps with `first`, saved to a file, loaded into a new optimizer with
// `second` (its parameters copied), 10 more steps: the same as 20 steps with
// `second` all along.
template <typename Opt, typename Options>
void check_resume(Options first, Options second, double tol) {
  Opt whole(make_params(DType::F32), second);
  Generator g(11);
  run_steps(whole, g, 20);

  Opt a(make_params(DType::F32), first);
  Generator ga(11);
  run_steps(a, ga, 10);
  const auto file = std::filesystem::temp_directory_path() / "plexus-test-optim-state.safetensors";
  a.save(file);
  optim::NamedParameters ps = make_params(DType::F32);
  {
    NoGradGuard no_grad;
    for (size_t k = 0; k < ps.size(); ++k) ps[k].second.copy_(a.parameters()[k].second);
  }
  Opt b(ps, second);
  b.load(file);
  std::filesystem::remove(file);
  run_steps(b, ga, 10);
  check_same(whole, b, tol);
  if constexpr (std::is_same_v<Opt, optim::Adam>) CHECK(b.steps("fc2.weight") == 20);
}

}  // namespace

TEST_CASE("optimizer state saved and loaded resumes training where it stopped", "[optim]") {
  optim::AdamOptions adam{.lr = 1e-2, .weight_decay = 0.01};
  for (UpdatePath saved : kPaths) {
    for (UpdatePath loaded : kPaths) {
      INFO("Adam saved by path " << int(saved) << ", loaded by path " << int(loaded));
      optim::AdamOptions s = adam, l = adam;
      s.path = saved;
      l.path = loaded;
      // The same path: bit for bit; across paths, their usual float32 agreement.
      check_resume<optim::Adam>(s, l, saved == loaded ? 0.0 : 2e-5);
    }
  }
  SECTION("capturable and amsgrad keep their own state") {
    optim::AdamOptions cap{.lr = 1e-2, .capturable = true, .path = UpdatePath::PerTensor};
    check_resume<optim::Adam>(cap, cap, 0.0);
    check_resume<optim::Adam>(optim::AdamOptions{.lr = 1e-2}, cap, 2e-5);
    optim::AdamOptions ams{.lr = 1e-2, .amsgrad = true};
    check_resume<optim::Adam>(ams, ams, 0.0);
  }
  SECTION("SGD's momentum buffers") {
    optim::SGDOptions sgd{.lr = 0.05, .momentum = 0.9, .nesterov = true};
    for (UpdatePath path : kPaths) {
      sgd.path = path;
      check_resume<optim::SGD>(sgd, sgd, 0.0);
    }
  }
}

TEST_CASE("optimizer load_state_dict lists every bad entry and changes nothing", "[optim]") {
  optim::Adam opt(make_params(DType::F32), {.lr = 1e-2});
  Generator g(1);
  run_steps(opt, g, 2);
  const auto before = opt.state_dict();
  REQUIRE(before.size() == 18);  // 6 parameters x step, exp_avg, exp_avg_sq
  auto bad = before;
  bad["fc1.weight.exp_avg"] = full({64, 10}, 7.0);  // valid: must not be applied
  bad["fc9.weight.exp_avg"] = zeros({1});
  bad["fc1.weight.momentum_buffer"] = zeros({64, 10});
  bad.erase("fc2.bias.exp_avg_sq");
  bad["fc1.bias.exp_avg"] = zeros({3});
  CHECK_THROWS_WITH(
      opt.load_state_dict(bad),
      Contains("unexpected keys [fc1.weight.momentum_buffer, fc9.weight.exp_avg]") &&
          Contains("missing from a parameter's state [fc2.bias.exp_avg_sq]") &&
          Contains("mis-shaped [fc1.bias.exp_avg ([3], parameter [64])]") &&
          Contains("this optimizer keeps [step, exp_avg, exp_avg_sq]") &&
          Contains("nothing was loaded"));
  CHECK(max_abs_diff(opt.state_dict().at("fc1.weight.exp_avg"), before.at("fc1.weight.exp_avg")) ==
        0);
  // Unexpected entries alone are ignored when not strict.
  auto extra = before;
  extra["fc1.weight.momentum_buffer"] = zeros({64, 10});
  CHECK_THROWS_WITH(opt.load_state_dict(extra), Contains("unexpected keys"));
  CHECK_NOTHROW(opt.load_state_dict(extra, false));
  // A step count must be a whole number.
  auto half = before;
  half["fc3.bias.step"] = full({}, 2.5);
  CHECK_THROWS_WITH(opt.load_state_dict(half),
                    Contains("fc3.bias.step (2.5, expected a whole number of steps)"));
}
