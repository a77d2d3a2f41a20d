// plexus-bench-train: the seed model's training step and autograd's costs,
// with libtorch 1.13 as a peer in the same run when it is installed.
//
//   plexus-bench-train [--steps N] [--only ROW]   (--only: one row, for perf)
//
// Rows (best of 7 runs; a run is `steps` calls):
//   step_b32, step_b800   one training step of SimpleNN 10-64-32-1 (forward,
//                         MSE loss, zero_grad, backward, Adam) at batch 32 / 800
//   compiled_b32, ...     the same step through plexus::compile (capturable
//                         Adam), replayed; capture+compile: the calls until
//                         the first replay, in ms
//   compiled_fwd_b32      the step with only the model's forward compiled; its
//                         backward replays through CompiledFunctionBackward
//   record_1elem          a 1-element mul whose input requires grad, minus the
//                         same call without grad: the cost of recording a node
//   chain_1elem           forward and backward of a chain of 1-element muls, per op
//   add_out_1elem         a 1-element add_out (no grad, no allocation) through the
//                         real cpu plugin: the dispatch cost small models pay per op
//   cnn_step_b32          one training step of a small CNN on 28x28 images (two
//                         conv 3x3 + relu + max_pool 2 blocks, 8 and 16
//                         channels, then linear to 10; MSE, Adam) at batch 32
// The libtorch peer starts from the same weights and data; after the timed
// steps both models have taken the same number of Adam steps on the same
// batch, and the largest weight difference is printed, relative to each
// tensor's largest weight (float32: rounding differences grow over steps).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "best_time.h"
#include "plexus/autograd.h"
#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/plugins.h"
#include "simple_nn.h"

#ifdef PLEXUS_BENCH_TORCH
#include "parity/torch_simple_nn.h"  // the libtorch peer, shared with tests/parity
#endif

using namespace plexus;

namespace {

void row(const char* name, double plexus_us, double torch_us) {
  if (std::isnan(torch_us)) {
    std::printf("%-14s %10.2f us   (libtorch not installed)\n", name, plexus_us);
  } else {
    std::printf("%-14s %10.2f us   libtorch %10.2f us   ratio %.2f\n", name, plexus_us, torch_us,
                torch_us / plexus_us);
  }
}

#ifdef PLEXUS_BENCH_TORCH
using plexus::testing::to_torch;
using TorchNet = plexus::testing::TorchSimpleNN;
#endif

double step_row(const char* name, int64_t batch, int steps) {
  Generator gen(1);
  Tensor x = randn({batch, 10}, gen), y = randn({batch, 1}, gen);
  train::SimpleNN model(gen, Device());
#ifdef PLEXUS_BENCH_TORCH
  TorchNet tmodel(model);
  torch::optim::Adam topt(tmodel.parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor tx = to_torch(x), ty = to_torch(y);
#endif
  optim::Adam opt(model.named_parameters(), {.lr = 1e-3});
  const int runs = 7;
  double us = best_us(steps, runs, [&] {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
  });
  double tus = NAN;
#ifdef PLEXUS_BENCH_TORCH
  tus = best_us(steps, runs, [&] {
    torch::Tensor loss = torch::mse_loss(tmodel.forward(tx), ty);
    topt.zero_grad();
    loss.backward();
    topt.step();
  });
  double worst = 0;
  for (auto& [pname, t] : model.named_parameters()) {
    torch::Tensor a = to_torch(t), b = tmodel.named_parameters()[pname].detach();
    worst = std::max(worst, ((a - b).abs().max() / b.abs().max()).item<double>());
  }
  row(name, us, tus);
  std::printf("%-14s after %d Adam steps each: largest weight difference %.2g (relative to "
              "the tensor's largest weight)\n",
              "", (runs + 1) * steps, worst);
  return us;
#endif
  row(name, us, tus);
  return us;
}

// The step compiled; prints its row against eager plexus (`eager_us`) and
// libtorch, and how long capture and compile took.
void compiled_row(const char* name, int64_t batch, int steps, double eager_us) {
  Generator gen(1);
  Tensor x = randn({batch, 10}, gen), y = randn({batch, 1}, gen);
  train::SimpleNN model(gen, Device());
  optim::Adam opt(model.named_parameters(), {.lr = 1e-3, .capturable = true});
  auto step = compile([&](const Tensor& xb, const Tensor& yb) {
    Tensor loss = mse_loss(model(xb), yb);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  });
  auto t0 = std::chrono::steady_clock::now();
  while (step.stats().replays == 0 && step.stats().eager_calls == 0) step(x, y);
  double compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (step.stats().eager_calls > 0) {
    std::printf("%-14s the step did not compile: %s\n", name,
                step.compiled().eager_reason().c_str());
    return;
  }
  double us = best_us(steps, 7, [&] { step(x, y); });
  std::printf("%-14s %10.2f us   eager plexus %10.2f us   ratio %.2f   (%zu ops in %zu "
              "launches; capture+compile %.1f ms over %llu calls)\n",
              name, us, eager_us, eager_us / us, step.graph()->num_calls(),
              step.graph()->num_launches(), compile_ms,
              static_cast<unsigned long long>(step.stats().captures));
}

// The step with only the model's forward compiled: its backward (replayed
// through CompiledFunctionBackward), the loss and Adam run eagerly around it.
void compiled_forward_row(const char* name, int64_t batch, int steps, double eager_us) {
  Generator gen(1);
  Tensor x = randn({batch, 10}, gen), y = randn({batch, 1}, gen);
  train::SimpleNN model(gen, Device());
  optim::Adam opt(model.named_parameters(), {.lr = 1e-3});
  auto forward = compile([&](const Tensor& xb) { return model(xb); });
  auto step = [&] {
    Tensor loss = mse_loss(forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
  };
  while (forward.stats().replays == 0 && forward.stats().eager_calls == 0) step();
  if (forward.stats().eager_calls > 0) {
    std::printf("%-14s the forward did not compile: %s\n", name,
                forward.compiled().eager_reason().c_str());
    return;
  }
  double us = best_us(steps, 7, step);
  std::printf("%-14s %10.2f us   eager plexus %10.2f us   ratio %.2f   (forward and its backward: "
              "%zu ops in %zu launches)\n",
              name, us, eager_us, eager_us / us, forward.graph()->num_calls(),
              forward.graph()->num_launches());
}

// A small CNN's training step; libtorch runs the same layers from the same
// weights on the same batch.
void cnn_row(int steps) {
  Generator gen(2);
  auto conv = [&](int64_t in, int64_t out) {
    return nn::make<nn::Conv2d>(in, out, std::vector<int64_t>{3}, gen, std::vector<int64_t>{1},
                                std::vector<int64_t>{1});
  };
  auto pool = [] { return nn::make<nn::MaxPool2d>(std::vector<int64_t>{2}); };
  nn::Sequential net;
  net.add(conv(1, 8)).add(nn::make<nn::ReLU>()).add(pool());
  net.add(conv(8, 16)).add(nn::make<nn::ReLU>()).add(pool());
  net.add(nn::make<nn::Flatten>()).add(nn::make<nn::Linear>(16 * 7 * 7, 10, gen));
  Tensor x = randn({32, 1, 28, 28}, gen), y = randn({32, 10}, gen);
  optim::Adam opt(net.named_parameters(), {.lr = 1e-3});
  const int runs = 7;
  double us = best_us(steps, runs, [&] {
    Tensor loss = mse_loss(net.forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
  });
  double tus = NAN;
#ifdef PLEXUS_BENCH_TORCH
  namespace tnn = torch::nn;
  tnn::Sequential tnet(tnn::Conv2d(tnn::Conv2dOptions(1, 8, 3).padding(1)), tnn::ReLU(),
                       tnn::MaxPool2d(tnn::MaxPool2dOptions(2)),
                       tnn::Conv2d(tnn::Conv2dOptions(8, 16, 3).padding(1)), tnn::ReLU(),
                       tnn::MaxPool2d(tnn::MaxPool2dOptions(2)), tnn::Flatten(),
                       tnn::Linear(16 * 7 * 7, 10));
  {
    torch::NoGradGuard no_grad;
    // The weights before plexus's timed steps: the same generator, drawn again.
    Generator again(2);
    nn::Sequential fresh;
    auto conv2 = [&](int64_t in, int64_t out) {
      return nn::make<nn::Conv2d>(in, out, std::vector<int64_t>{3}, again,
                                  std::vector<int64_t>{1}, std::vector<int64_t>{1});
    };
    fresh.add(conv2(1, 8)).add(nn::make<nn::ReLU>()).add(pool());
    fresh.add(conv2(8, 16)).add(nn::make<nn::ReLU>()).add(pool());
    fresh.add(nn::make<nn::Flatten>()).add(nn::make<nn::Linear>(16 * 7 * 7, 10, again));
    auto named = tnet->named_parameters();
    for (auto& [name, t] : fresh.named_parameters()) named[name].copy_(to_torch(t));
  }
  torch::optim::Adam topt(tnet->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor tx = to_torch(x), ty = to_torch(y);
  tus = best_us(steps, runs, [&] {
    torch::Tensor loss = torch::mse_loss(tnet->forward(tx), ty);
    topt.zero_grad();
    loss.backward();
    topt.step();
  });
  double worst = 0;
  auto named = tnet->named_parameters();
  for (auto& [pname, t] : net.named_parameters()) {
    torch::Tensor a = to_torch(t), b = named[pname].detach();
    worst = std::max(worst, ((a - b).abs().max() / b.abs().max()).item<double>());
  }
  row("cnn_step_b32", us, tus);
  std::printf("%-14s after %d Adam steps each: largest weight difference %.2g (relative to "
              "the tensor's largest weight)\n",
              "", (runs + 1) * steps, worst);
  return;
#endif
  row("cnn_step_b32", us, tus);
}

void autograd_rows(int steps) {
  Tensor a = full({1}, 1.0), b = full({1}, 2.0);
  Tensor g = full({1}, 1.0).requires_grad_();
  double plain = best_us(steps, 7, [&] { (void)mul(a, b); });
  double recorded = best_us(steps, 7, [&] { (void)mul(g, b); });
  const int chain = 20;
  double per_op = best_us(std::max(1, steps / chain), 7, [&] {
                    Tensor x = g;
                    for (int i = 0; i < chain; ++i) x = mul(x, b);
                    x.backward();
                  }) /
                  chain;
  Tensor out = empty({1});
  double add_out_us = best_us(steps, 7, [&] { (void)add_out(out, a, b); });
  double t_rec = NAN, t_chain = NAN, t_add_out = NAN;
#ifdef PLEXUS_BENCH_TORCH
  torch::Tensor ta = torch::ones({1}), tb = torch::full({1}, 2.0);
  torch::Tensor tg = torch::ones({1}, torch::requires_grad());
  double tplain = best_us(steps, 7, [&] { (void)torch::mul(ta, tb); });
  t_rec = best_us(steps, 7, [&] { (void)torch::mul(tg, tb); }) - tplain;
  t_chain = best_us(std::max(1, steps / chain), 7, [&] {
              torch::Tensor x = tg;
              for (int i = 0; i < chain; ++i) x = torch::mul(x, tb);
              x.backward();
            }) /
            chain;
  std::printf("%-14s %10.2f us   libtorch %10.2f us   (1-element mul, no grad)\n", "mul_1elem",
              plain, tplain);
  torch::Tensor tout = torch::empty({1});
  t_add_out = best_us(steps, 7, [&] { (void)torch::add_out(tout, ta, tb); });
#endif
  row("record_1elem", recorded - plain, t_rec);
  row("chain_1elem", per_op, t_chain);
  row("add_out_1elem", add_out_us, t_add_out);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 200;
  std::string only;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--steps") steps = std::max(1, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
  }
  load_plugins();
  Dispatcher::get().set_fallback_policy(FallbackPolicy::Error);
  if (only == "compiled_b32" || only == "compiled_b800") {
    compiled_row(only.c_str(), only == "compiled_b32" ? 32 : 800, steps, NAN);
    return 0;
  }
#ifdef PLEXUS_BENCH_TORCH
  std::printf("libtorch %s, %d threads (set_num_threads(1) below for the _1t rows)\n",
              TORCH_VERSION, torch::get_num_threads());
#endif
  if (only == "cnn_step_b32") {
    cnn_row(std::max(1, steps / 10));
    return 0;
  }
  double b32 = step_row("step_b32", 32, steps);
  compiled_row("compiled_b32", 32, steps, b32);
  compiled_forward_row("compiled_fwd_b32", 32, steps, b32);
  double b800 = step_row("step_b800", 800, std::max(1, steps / 4));
  compiled_row("compiled_b800", 800, std::max(1, steps / 4), b800);
  cnn_row(std::max(1, steps / 10));
#ifdef PLEXUS_BENCH_TORCH
  torch::set_num_threads(1);
  step_row("step_b800_1t", 800, std::max(1, steps / 4));
#endif
  autograd_rows(steps * 50);
  return 0;
}
