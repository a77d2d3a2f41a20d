// plexus-bench-graph: what plexus::compile buys, measured against the same
// work run eagerly in the same process.
//
//   plexus-bench-graph [--device cpu|vulkan:0|...] [--runs 5]
//
// Rows:
//   gelu_chain_16M   gelu's tanh approximation written as 8 separate
//                    elementwise ops over 16M floats: compiled (fused on the
//                    cpu) against eager, best of `runs`
//   poly_chain_16M   the same chain with tanh left out (7 ops, no transcendental):
//                    what fusion saves in memory traffic alone
//   lr_changes_500   500 compiled seed-model steps with capturable Adam whose
//                    learning rate changes before every step: how many
//                    captures and recaptures that cost (0 recaptures is the goal)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/plugins.h"
#include "plexus/random.h"
#include "plexus/runtime.h"
#include "simple_nn.h"

using namespace plexus;

namespace {

double best_ms(int runs, const std::function<void()>& f, Device device) {
  f();
  double best = INFINITY;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    (void)empty({1}, TensorOptions(device)).cpu();  // waits for the device's queue
    best = std::min(best, std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

Tensor gelu_chain(const Tensor& x) {
  Tensor cube = mul(mul(x, x), x);
  Tensor inner = mul(add(x, mul(cube, 0.044715)), 0.7978845608028654);
  return mul(mul(x, 0.5), add(tanh(inner), 1.0));
}

Tensor poly_chain(const Tensor& x) {
  Tensor cube = mul(mul(x, x), x);
  Tensor inner = mul(add(x, mul(cube, 0.044715)), 0.7978845608028654);
  return mul(mul(x, 0.5), add(inner, 1.0));
}

void chain_row(const char* name, Tensor (*chain)(const Tensor&), Device device, int runs) {
  Generator gen(1);
  Tensor x = randn({int64_t(1) << 24}, gen).to(device);
  auto compiled = compile([chain](const Tensor& t) { return chain(t); });
  Tensor want = chain(x), got = compiled(x);
  while (compiled.stats().replays == 0 && compiled.stats().eager_calls == 0) got = compiled(x);
  double eager = best_ms(runs, [&] { (void)chain(x); }, device);
  double fused = best_ms(runs, [&] { (void)compiled(x); }, device);
  double diff = amax(abs(sub(got.cpu(), want.cpu()))).item<double>();
  const graph::Graph* g = compiled.graph();
  std::printf("%-16s %-9s eager %8.2f ms   compiled %8.2f ms   ratio %.2f   (%zu ops in %zu "
              "launches; largest difference %.2g)\n",
              name, device.str().c_str(), eager, fused, eager / fused,
              g ? g->num_calls() : 0, g ? g->num_launches() : 0, diff);
}

void lr_row(Device device) {
  Generator gen(2);
  train::SimpleNN model(gen, device);
  optim::Adam opt(model.named_parameters(), {.lr = 1e-3, .capturable = true});
  auto step = compile([&](const Tensor& x, const Tensor& y) {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  });
  Tensor x = randn({32, 10}, gen).to(device), y = randn({32, 1}, gen).to(device);
  for (int i = 0; i < 500; ++i) {
    opt.set_lr(1e-3 * (1.0 + std::cos(3.14159265 * i / 500.0)) / 2.0 + 1e-5);  // cosine decay
    step(x, y);
  }
  graph::CompileStats s = step.stats();
  std::printf("%-16s %-9s %llu captures, %llu recaptures, %llu replays, %llu eager steps\n",
              "lr_changes_500", device.str().c_str(), static_cast<unsigned long long>(s.captures),
              static_cast<unsigned long long>(s.recaptures),
              static_cast<unsigned long long>(s.replays),
              static_cast<unsigned long long>(s.eager_calls));
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_name = "cpu";
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--device") device_name = argv[i + 1];
    if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
  }
  try {
    Runtime runtime;
    Device device = Device::parse(device_name);
    Dispatcher::get().set_fallback_policy(FallbackPolicy::Error);
    chain_row("gelu_chain_16M", gelu_chain, device, runs);
    chain_row("poly_chain_16M", poly_chain, device, runs);
    lr_row(device);
  } catch (const Error& e) {
    std::fprintf(stderr, "plexus-bench-graph: %s\n", e.what());
    return 1;
  }
  return 0;
}
