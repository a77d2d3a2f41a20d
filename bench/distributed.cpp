// plexus-bench-distributed: what plexus::distributed costs over MPI itself,
// and what DDP costs over single-process training. Run it under mpirun:
//
//   mpirun --allow-run-as-root --oversubscribe -np 2 build/bin/plexus-bench-distributed [--runs 20]
//
// Rows (rank 0 prints; every figure is a median of `runs`):
//   all_reduce_<size>   ProcessGroup::all_reduce (sum, float32) against a
//                       direct MPI_Allreduce on the same buffers, in the same
//                       run, interleaved: ratio = MPI time / plexus time
//   ddp_seed_b32        the seed model's training step with a per-rank batch of
//                       32: DDP on all ranks against the plain step on one
//                       rank (the others idle at a barrier), same process
//   ddp_mlp_4x1024      a 4-layer 1024-wide MLP (4.2M parameters, 1 MiB
//                       buckets), where communication is large enough to
//                       overlap: step times, plus the share of all-reduce
//                       time hidden behind backward (1 - exposed / total)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "plexus/distributed.h"
#include "plexus/factories.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/plugins.h"
#include "plexus/random.h"
#include "simple_nn.h"

using namespace plexus;
using namespace plexus::distributed;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_of(const std::function<void()>& f) {
  auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Mlp : nn::Module {
  std::vector<std::shared_ptr<nn::Linear>> layers;
  explicit Mlp(Generator& gen) {
    for (int i = 0; i < 4; ++i)
      layers.push_back(register_module("l" + std::to_string(i), nn::make<nn::Linear>(1024, 1024, gen)));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = x;
    for (auto& l : layers) h = relu(l->forward(h));
    return h;
  }
};

// Median step time of `step` run `runs` times after 3 warm-up steps.
double step_time(int runs, const std::function<void()>& step) {
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(seconds_of(step));
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs") runs = std::max(3, std::atoi(argv[i + 1]));
  load_plugins();
  ProcessGroup& pg = init_process_group();
  const bool print = pg.rank() == 0;
  if (print)
    std::printf("ranks: %d, median of %d runs\n%-20s %12s %12s %8s\n", pg.size(), runs, "row",
                "plexus", "peer", "ratio");

  // all_reduce against MPI_Allreduce on the same buffers.
  for (int64_t bytes : {int64_t(4) << 10, int64_t(256) << 10, int64_t(4) << 20, int64_t(64) << 20}) {
    Tensor t = full({bytes / 4}, 1.0);
    std::vector<double> ours, theirs;
    for (int r = 0; r < runs; ++r) {
      pg.barrier();
      ours.push_back(seconds_of([&] { pg.all_reduce(t); }));
      MPI_Barrier(MPI_COMM_WORLD);
      theirs.push_back(seconds_of([&] {
        MPI_Allreduce(MPI_IN_PLACE, t.data_ptr(), int(t.numel()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }));
    }
    double a = median(ours), b = median(theirs);
    std::string name = bytes >= (1 << 20) ? std::to_string(bytes >> 20) + "MB" : std::to_string(bytes >> 10) + "KB";
    if (print)
      std::printf("%-20s %10.1f us %10.1f us %8.2f   (MPI_Allreduce / plexus)\n",
                  ("all_reduce_" + name).c_str(), a * 1e6, b * 1e6, b / a);
  }

  // The seed model: DDP step on every rank against the plain step on one.
  {
    Generator gen(1);
    Tensor x = randn({32, 10}, gen), y = randn({32, 1}, gen);
    auto plain = std::make_shared<train::SimpleNN>(gen, Device());
    optim::Adam plain_opt(plain->named_parameters(), {.lr = 1e-3});
    auto model = std::make_shared<train::SimpleNN>(gen, Device());
    DistributedDataParallel ddp(model, pg);
    optim::Adam opt(model->named_parameters(), {.lr = 1e-3});
    double single = 0;
    pg.barrier();
    if (pg.rank() == 0)
      single = step_time(runs * 10, [&] {
        plain_opt.zero_grad();
        mse_loss((*plain)(x), y).backward();
        plain_opt.step();
      });
    pg.barrier();
    double dist = step_time(runs * 10, [&] {
      opt.zero_grad();
      mse_loss(ddp(x), y).backward();
      opt.step();
    });
    if (print)
      std::printf("%-20s %10.1f us %10.1f us %8.2f   (DDP step / 1-process step; +%.1f us)\n",
                  "ddp_seed_b32", dist * 1e6, single * 1e6, dist / single, (dist - single) * 1e6);
  }

  // A model large enough for communication to overlap backward.
  {
    Generator gen(2);
    Tensor x = randn({64, 1024}, gen), y = randn({64, 1024}, gen);
    auto plain = std::make_shared<Mlp>(gen);
    optim::SGD plain_opt(plain->named_parameters(), {.lr = 1e-3});
    auto model = std::make_shared<Mlp>(gen);
    DistributedDataParallel ddp(model, pg, {.bucket_bytes = size_t(1) << 20});
    optim::SGD opt(model->named_parameters(), {.lr = 1e-3});
    double single = 0;
    pg.barrier();
    if (pg.rank() == 0)
      single = step_time(runs, [&] {
        plain_opt.zero_grad();
        mse_loss((*plain)(x), y).backward();
        plain_opt.step();
      });
    pg.barrier();
    DDPStats before = ddp.stats();
    double dist = step_time(runs, [&] {
      opt.zero_grad();
      mse_loss(ddp(x), y).backward();
      opt.step();
    });
    DDPStats after = ddp.stats();
    double comm = after.comm_seconds - before.comm_seconds;
    double exposed = after.exposed_seconds - before.exposed_seconds;
    if (print)
      std::printf("%-20s %10.1f us %10.1f us %8.2f   (DDP step / 1-process step; %zu buckets, "
                  "%.0f%% of all-reduce time hidden behind backward)\n",
                  "ddp_mlp_4x1024", dist * 1e6, single * 1e6, dist / single, ddp.buckets().size(),
                  comm > 0 ? 100.0 * (1.0 - std::min(1.0, exposed / comm)) : 0.0);
  }
  return 0;
}
