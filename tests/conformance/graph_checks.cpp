// The graph checks: what plexus::compile captures and replays on a plugin's
// device must equal what the same ops give eagerly there. Replay reuses the
// memory it bound once and runs kernels resolved at compile time, so a
// kernel that keeps state between calls, writes outside its output or
// ignores an output's layout shows up here even when each op alone is right.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <random>

#include "plexus/autograd.h"
#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/random.h"
#include "runtime_checks.h"

namespace plexus::conformance {
namespace {

bool has_f32_kernel(const Target& tg, const char* op) {
  const Operator* o = Dispatcher::get().find_op(op);
  const KernelEntry* k = o ? o->kernel(tg.device.type) : nullptr;
  return k && k->dtypes.contains(DType::F32);
}

// A float32 tensor's values on the host (copies only: the suite loads the
// plugin under test alone, so the host has no kernels to compute with).
std::vector<float> host_values(const Tensor& t) {
  Tensor h = t.cpu().contiguous();
  const float* p = h.data<float>();
  return std::vector<float>(p, p + h.numel());
}

// max |a - b| / max |b|, in float64 on the host; NaN when either has a NaN.
double relative_difference(const Tensor& a, const Tensor& b) {
  std::vector<float> x = host_values(a), y = host_values(b);
  if (x.size() != y.size()) return NAN;
  double scale = 1e-30, worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) != std::isnan(y[i])) return NAN;
    scale = std::max(scale, std::fabs(double(y[i])));
    if (!std::isnan(x[i])) worst = std::max(worst, std::fabs(double(x[i]) - double(y[i])));
  }
  return worst / scale;
}

struct ChainOp {
  const char* kernel;  // what the plugin must have
  std::function<Tensor(const Tensor& v, const Tensor& row, const Tensor& col)> apply;
};

}  // namespace

std::string check_graph_chains(const Target& tg) {
  const std::vector<ChainOp> all = {
      {"add.out", [](const Tensor& v, const Tensor& row, const Tensor&) { return add(v, row, 0.5); }},
      {"mul.out", [](const Tensor& v, const Tensor&, const Tensor& col) { return mul(v, col); }},
      {"sub.out", [](const Tensor& v, const Tensor& row, const Tensor&) { return sub(row, v); }},
      {"tanh.out", [](const Tensor& v, const Tensor&, const Tensor&) { return tanh(v); }},
      {"sigmoid.out", [](const Tensor& v, const Tensor&, const Tensor&) { return sigmoid(v); }},
      {"relu.out", [](const Tensor& v, const Tensor&, const Tensor&) { return relu(v); }},
      {"neg.out", [](const Tensor& v, const Tensor&, const Tensor&) { return neg(v); }},
      {"abs.out", [](const Tensor& v, const Tensor&, const Tensor&) { return abs(v); }},
      {"div.out", [](const Tensor& v, const Tensor& row, const Tensor&) {
         return div(v, add(abs(row), 1.0));
       }},
  };
  std::vector<const ChainOp*> ops;
  for (const ChainOp& o : all)
    if (has_f32_kernel(tg, o.kernel)) ops.push_back(&o);
  if (ops.size() < 2 || !has_f32_kernel(tg, "copy_"))
    throw NotApplicable{"needs float32 copy_ and two of add, mul, sub, tanh, sigmoid, relu, "
                        "neg, abs, div"};
  std::mt19937_64 pick(20260);
  for (int chain = 0; chain < 12; ++chain) {
    std::vector<const ChainOp*> program;
    size_t length = 2 + pick() % 8;
    for (size_t i = 0; i < length; ++i) program.push_back(ops[pick() % ops.size()]);
    auto body = [&program](const Tensor& x, const Tensor& row, const Tensor& col) {
      Tensor v = x;
      for (const ChainOp* o : program) v = o->apply(v, row, col);
      return v;
    };
    auto compiled = compile(body);
    for (int call = 0; call < 4; ++call) {
      Generator gen(static_cast<uint64_t>(chain * 10 + call));
      Tensor x = randn({13, 33}, gen).to(tg.device), row = randn({33}, gen).to(tg.device),
             col = randn({13, 1}, gen).to(tg.device);
      Tensor want = body(x, row, col);
      Tensor got = compiled(x, row, col);
      double d = relative_difference(got, want);
      if (!(d <= 1e-6)) {
        std::string names;
        for (const ChainOp* o : program) names += std::string(o->kernel) + " ";
        return fmt::format("chain {} ({}), call {} ({}): compiled and eager differ by {:.3g} "
                           "(relative to the largest value)",
                           chain, names, call, call < 2 ? "capture" : "replay", d);
      }
    }
    if (compiled.stats().replays != 2)
      return fmt::format("chain {}: {} of 4 calls replayed, expected 2 ({})", chain,
                         compiled.stats().replays, compiled.compiled().eager_reason());
  }
  return "";
}

namespace {

void require_step_kernels(const Target& tg) {
  for (const char* k : {"addmm.out", "mm.out", "relu.out", "mul.out", "sub.out", "add.out",
                        "div.out", "sqrt.out", "lerp.Scalar_out", "addcmul.out", "mean.out",
                        "sum.IntList_out", "gt.Scalar_out", "pow.Tensor_Tensor_out", "copy_",
                        "fill_.Scalar"})
    if (!has_f32_kernel(tg, k))
      throw NotApplicable{fmt::format("the training step needs a float32 {} kernel", k)};
}

// The seed's network (10-64-32-1, ReLU) on the target, with Adam.
struct Model {
  Generator gen;
  std::shared_ptr<nn::Sequential> net;
  std::unique_ptr<optim::Adam> opt;
  Model(const Target& tg, bool capturable) : gen(5) {
    net = std::make_shared<nn::Sequential>();
    net->add(nn::make<nn::Linear>(10, 64, gen));
    net->add(std::make_shared<nn::ReLU>());
    net->add(nn::make<nn::Linear>(64, 32, gen));
    net->add(std::make_shared<nn::ReLU>());
    net->add(nn::make<nn::Linear>(32, 1, gen));
    net->to(tg.device);
    opt = std::make_unique<optim::Adam>(net->named_parameters(),
                                        optim::AdamOptions{.lr = 1e-2, .capturable = capturable});
  }
  // One step, with the forward given (the net's own, or a compiled one).
  Tensor step(const Tensor& x, const Tensor& y, const std::function<Tensor(const Tensor&)>& fwd) {
    Tensor loss = mse_loss(fwd(x), y);
    opt->zero_grad();
    loss.backward();
    opt->step();
    return loss;
  }
  Tensor step(const Tensor& x, const Tensor& y) {
    return step(x, y, [this](const Tensor& in) { return net->forward(in); });
  }
};

// "" when the two models' parameters agree after training.
std::string compare_parameters(Model& compiled, Model& eager, const char* what) {
  auto pe = eager.net->named_parameters(), pc = compiled.net->named_parameters();
  for (size_t k = 0; k < pe.size(); ++k) {
    double d = relative_difference(pc[k].second, pe[k].second);
    if (!(d <= 1e-5))
      return fmt::format("after 6 steps {} differs by {:.3g} between {} and eager", pe[k].first,
                         d, what);
  }
  return "";
}

}  // namespace

std::string check_graph_backward(const Target& tg) {
  require_step_kernels(tg);
  Model eager(tg, false), compiled(tg, false);
  auto forward = compile([&](const Tensor& x) { return compiled.net->forward(x); });
  Generator data(7);
  for (int i = 0; i < 6; ++i) {
    Tensor x = randn({16, 10}, data).to(tg.device), y = randn({16, 1}, data).to(tg.device);
    Tensor got = compiled.step(x, y, [&](const Tensor& in) { return forward(in); });
    double d = relative_difference(got, eager.step(x, y));
    if (!(d <= 1e-5))
      return fmt::format("step {}: the loss through the compiled forward differs from the eager "
                         "one by {:.3g}",
                         i, d);
  }
  if (forward.stats().replays < 2)
    return fmt::format("only {} of 6 forwards replayed ({})", forward.stats().replays,
                       forward.compiled().eager_reason());
  return compare_parameters(compiled, eager, "a compiled forward (its backward replayed)");
}

std::string check_graph_seed_step(const Target& tg) {
  require_step_kernels(tg);
  Model eager(tg, true), compiled(tg, true);
  auto step = compile([&](const Tensor& x, const Tensor& y) { return compiled.step(x, y); });
  Generator data(7);
  for (int i = 0; i < 6; ++i) {
    Tensor x = randn({16, 10}, data).to(tg.device), y = randn({16, 1}, data).to(tg.device);
    double d = relative_difference(step(x, y), eager.step(x, y));
    if (!(d <= 1e-5))
      return fmt::format("step {}: the compiled loss differs from the eager one by {:.3g}", i, d);
  }
  if (step.stats().replays < 2)
    return fmt::format("only {} of 6 steps replayed ({})", step.stats().replays,
                       step.compiled().eager_reason());
  return compare_parameters(compiled, eager, "compiled");
}

}  // namespace plexus::conformance
