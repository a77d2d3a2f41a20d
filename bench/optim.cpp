// plexus-bench-optim: the optimizer's update paths on the cpu, with libtorch
// 1.13's Adam as a peer in the same run when it is installed.
//
//   plexus-bench-optim [--steps N]
//
// Rows (best of 7 runs; a run is `steps` optimizer steps; gradients are set
// once and stay, so only the update is timed):
//   adam_seed_<path>   Adam on the seed model's 6 tensors (10-64-32-1), per
//                      parameter tensor, for each UpdatePath; libtorch's Adam
//                      (its default, for-loop path) on the same tensors
//   adam_10x1M_<path>  Adam on 10 tensors of 1M float32 each, per step, and
//                      the ratio of the per-tensor path's time to this one's
//   adam_2x16M_<path>  the same on 2 tensors of 16M float32 (64 MB each, with
//                      their state and temporaries well past the L3 cache)
#include "plexus/optim.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>

#include "best_time.h"
#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/plugins.h"
#include "plexus/random.h"

#ifdef PLEXUS_BENCH_TORCH
#include <torch/torch.h>
#endif

using namespace plexus;
using optim::UpdatePath;

namespace {

// Leaves of these sizes with gradients set, seeded.
optim::NamedParameters make_params(const std::vector<std::vector<int64_t>>& shapes) {
  Generator gen(1);
  optim::NamedParameters ps;
  for (size_t k = 0; k < shapes.size(); ++k) {
    Tensor p = randn(shapes[k], gen);
    p.requires_grad_();
    p.set_grad(randn(shapes[k], gen));
    ps.emplace_back("p" + std::to_string(k), p);
  }
  return ps;
}

const char* path_name(UpdatePath p) {
  return p == UpdatePath::PerTensor ? "per_tensor" : p == UpdatePath::List ? "list" : "fused";
}

// Microseconds of one Adam step over `shapes` on `path`.
double adam_us(const std::vector<std::vector<int64_t>>& shapes, UpdatePath path, int steps) {
  optim::NamedParameters ps = make_params(shapes);
  optim::Adam opt(ps, {.lr = 1e-3, .path = path});
  return best_us(steps, 7, [&] { opt.step(); });
}

double torch_adam_us(const std::vector<std::vector<int64_t>>& shapes, int steps) {
#ifdef PLEXUS_BENCH_TORCH
  std::vector<torch::Tensor> ts;
  for (const auto& s : shapes) {
    torch::Tensor t = torch::randn(s, torch::requires_grad());
    t.mutable_grad() = torch::randn(s);
    ts.push_back(t);
  }
  torch::optim::Adam opt(ts, torch::optim::AdamOptions(1e-3));
  return best_us(steps, 7, [&] { opt.step(); });
#else
  (void)shapes;
  (void)steps;
  return NAN;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--steps") steps = std::atoi(argv[i + 1]);
  load_plugins();
  Dispatcher::get().set_fallback_policy(FallbackPolicy::Error);
#ifdef PLEXUS_BENCH_TORCH
  std::printf("libtorch %s, %d thread(s)\n", TORCH_VERSION, torch::get_num_threads());
#else
  std::printf("libtorch: not built in (the libtorch columns are nan)\n");
#endif
  const std::vector<std::vector<int64_t>> seed = {{64, 10}, {64}, {32, 64}, {32}, {1, 32}, {1}};
  const double torch_seed = torch_adam_us(seed, steps) / 6;
  for (UpdatePath p : {UpdatePath::PerTensor, UpdatePath::List, UpdatePath::Fused}) {
    const double us = adam_us(seed, p, steps) / 6;
    std::printf("adam_seed_%-11s %8.2f us/tensor   libtorch %8.2f us/tensor   ratio %.2f\n",
                path_name(p), us, torch_seed, torch_seed / us);
  }
  const int big_steps = std::max(1, steps / 200);
  for (auto [name, count, size] :
       {std::tuple{"10x1M", 10, int64_t{1} << 20}, std::tuple{"2x16M", 2, int64_t{1} << 24}}) {
    const std::vector<std::vector<int64_t>> big(size_t(count), std::vector<int64_t>{size});
    const double base = adam_us(big, UpdatePath::PerTensor, big_steps);
    for (UpdatePath p : {UpdatePath::PerTensor, UpdatePath::List, UpdatePath::Fused}) {
      const double us = p == UpdatePath::PerTensor ? base : adam_us(big, p, big_steps);
      std::printf("adam_%s_%-10s %10.1f us/step   per-tensor path / this %.2f\n", name,
                  path_name(p), us, base / us);
    }
  }
  return 0;
}
