// The seed's training program: a small network (10 -> 64 -> 32 -> 1, ReLU)
// trained with Adam (lr 1e-3) on synthetic regression data under 5-fold
// cross-validation, then on the whole training set and scored on a held-out
// test set, on the device plexus.toml picks.
//
//   plexus-example-train [--config plexus.toml] [--epochs 100] [--out DIR]
//                        [--compile [--print-graphs]]
//   mpirun -np N plexus-example-train --distributed [--batch 32] ...
//
// --compile runs each training step through plexus::compile (capturable
// Adam): the step is captured as one graph of forward, backward and optimizer
// ops, and replayed; --print-graphs prints each compiled graph as a table.
//
// --distributed trains data-parallel across the ranks mpirun starts
// (plexus::distributed, DistributedDataParallel): each mini-batch of
// batch x N rows is cut into N shards, one per rank, and the gradients are
// averaged, so N ranks with --batch B train like one process with batch N*B.
// Rank 0 prints and writes the results.
//
// Data: 1000 samples of 10 features, y = X w + 0.1 noise (seeded); 80/20
// train/test split; features standardized with the training set's statistics.
// Per epoch: mini-batches of 32 in a shuffled order; the train and validation
// losses are averaged over the folds. Prints Test MSE and Test R^2, and writes
// the loss curves as an SVG picture and a CSV file (where is printed).
// Exit status: 0 on success, 1 on an error, 2 for bad arguments, 77 when the
// configured device is not available (ctest counts that as skipped).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "curves.h"
#include "simple_nn.h"
#include "plexus/autograd.h"
#include "plexus/data.h"
#include "plexus/device_backend.h"
#ifdef PLEXUS_HAVE_DISTRIBUTED
#include "plexus/distributed.h"
#endif
#include "plexus/graph.h"
#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/runtime.h"
#include "progress.h"

using namespace plexus;

namespace {

struct Args {
  std::string config;
  int epochs = 100;
  int folds = 5;
  int64_t batch = 32;
  uint64_t seed = 42;
  std::string out;  // empty: the temporary directory
  bool compile = false;
  bool print_graphs = false;
  bool distributed = false;
};

// The ranks of a --distributed run (1 of 1 otherwise).
struct World {
  int rank = 0, size = 1;
#ifdef PLEXUS_HAVE_DISTRIBUTED
  distributed::ProcessGroup* group = nullptr;
#endif
};

struct Data {
  Tensor x_train, y_train, x_test, y_test;  // on the device, standardized features
};

Data make_data(const Args& a, Device device) {
  Generator gen(a.seed);
  Tensor x = randn({1000, 10}, gen);
  Tensor w = randn({10, 1}, gen);
  Tensor y = add(mm(x, w), mul(randn({1000, 1}, gen), 0.1));
  auto [train, test] = data::train_test_split(1000, 0.2, gen);
  data::StandardScaler scaler;
  Tensor x_train = scaler.fit_transform(data::take_rows(x, train));
  Tensor x_test = scaler.transform(data::take_rows(x, test));
  return {x_train.to(device), data::take_rows(y, train).to(device), x_test.to(device),
          data::take_rows(y, test).to(device)};
}

struct EpochLosses {
  double train, validation;
};

// A model, its Adam and its training step, compiled, data-parallel or plain.
struct Trainer {
  std::shared_ptr<train::SimpleNN> owned;
  train::SimpleNN& model;
  optim::Adam opt;
  std::optional<graph::Compiled<std::function<Tensor(const Tensor&, const Tensor&)>>> compiled;
  const World& world;
#ifdef PLEXUS_HAVE_DISTRIBUTED
  std::optional<distributed::DistributedDataParallel> ddp;
#endif

  Trainer(Generator& gen, Device device, const Args& a, const std::string& name, const World& w)
      : owned(std::make_shared<train::SimpleNN>(gen, device)),
        model(*owned),
        opt(model.named_parameters(), {.lr = 1e-3, .capturable = a.compile}),
        world(w) {
#ifdef PLEXUS_HAVE_DISTRIBUTED
    if (w.group) ddp.emplace(owned, *w.group);
#endif
    if (!a.compile) return;
    std::function<Tensor(const Tensor&, const Tensor&)> fn = [this](const Tensor& x,
                                                                     const Tensor& y) {
      return eager_step(x, y);
    };
    compiled.emplace(std::move(fn), CompileOptions{.print = a.print_graphs,
                                                   .names = model.named_parameters(),
                                                   .name = name});
  }
  Tensor eager_step(const Tensor& x, const Tensor& y) {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  }
  Tensor step(const Tensor& x, const Tensor& y) {
    return compiled ? (*compiled)(x, y) : eager_step(x, y);
  }
#ifdef PLEXUS_HAVE_DISTRIBUTED
  // This rank's shard of a global batch of `global` rows: its summed squared
  // error scaled by world / global, so DDP's average over the ranks is the
  // global batch's mean. Returns the shard's summed squared error.
  Tensor shard_step(const Tensor& x, const Tensor& y, int64_t global) {
    Tensor sse = mse_loss((*ddp)(x), y, /*reduction sum*/ 2);
    opt.zero_grad();
    mul(sse, double(world.size) / double(global)).backward();
    opt.step();
    return sse.detach();
  }
#endif
};

// One epoch of mini-batch Adam over (x, y) in a shuffled order; returns the
// mean training loss (each batch weighted by its size).
double train_epoch(Trainer& t, const Tensor& x, const Tensor& y, int64_t batch, Generator& gen) {
  const int64_t n = x.size(0);
  data::Indices order = randperm(n, gen);
  Tensor xs = data::take_rows(x, order), ys = data::take_rows(y, order);
  Tensor total = zeros({}, {DType::F32, x.device()});
#ifdef PLEXUS_HAVE_DISTRIBUTED
  if (t.ddp) {
    // Global batches of batch x ranks rows; rank r takes the r-th of N nearly equal shards.
    const int64_t global = batch * t.world.size;
    for (int64_t start = 0; start < n; start += global) {
      int64_t len = std::min(global, n - start);
      int64_t from = start + len * t.world.rank / t.world.size;
      int64_t to = start + len * (t.world.rank + 1) / t.world.size;
      Tensor sse = t.shard_step(xs.narrow(0, from, to - from), ys.narrow(0, from, to - from), len);
      total = add(total, sse);
    }
    t.world.group->all_reduce(total);
    return total.item<double>() / static_cast<double>(n);
  }
#endif
  for (int64_t start = 0; start < n; start += batch) {
    int64_t len = std::min(batch, n - start);
    Tensor xb = xs.narrow(0, start, len), yb = ys.narrow(0, start, len);
    Tensor loss = t.step(xb, yb);
    total = add(total, loss.detach(), static_cast<double>(len));
  }
  return total.item<double>() / static_cast<double>(n);
}

// What compiling did, for the summary line.
struct CompileTotals {
  uint64_t captures = 0, replays = 0, eager = 0;
  void add(const Trainer& t) {
    if (!t.compiled) return;
    graph::CompileStats s = t.compiled->stats();
    captures += s.captures;
    replays += s.replays;
    eager += s.eager_calls;
  }
};

double evaluate(train::SimpleNN& model, const Tensor& x, const Tensor& y) {
  NoGradGuard no_grad;
  return mse_loss(model(x), y).item<double>();
}

#ifdef PLEXUS_HAVE_DISTRIBUTED
// This rank's number among the ranks on its node, from what the launchers set
// (Open MPI, MPICH/Hydra, Slurm); the global rank when none says.
int local_rank(int rank) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
  return rank;
}
#endif

int run(const Args& a) {
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(RuntimeOptions{a.config});
  } catch (const Error& e) {
    if (e.code() != ErrorCode::NotFound) throw;
    std::fprintf(stderr, "plexus-example-train: the configured device is not available: %s\n",
                 e.what());
    return 77;
  }
  Device device = runtime->device();
  World world;
#ifdef PLEXUS_HAVE_DISTRIBUTED
  // After the Runtime, so the plugins' device types exist when the group
  // chooses a communication backend for each (nccl for cuda).
  if (a.distributed) {
    world.group = &distributed::init_process_group();
    world.rank = world.group->rank();
    world.size = world.group->size();
    // One device per rank where the node has several of the configured type.
    int count = device_backend(device.type).device_count();
    if (world.size > 1 && device.type != kCPU && count > 1)
      device = Device(device.type, int16_t(local_rank(world.rank) % count));
  }
#endif
  // Rank 0 reports; the other ranks train silently.
  const bool report = world.rank == 0;
  // Rank 0 prints; the others say nothing (errors still reach stderr).
  if (!report && !std::freopen("/dev/null", "w", stdout)) return 1;
  std::printf("device: %s\n", device.str().c_str());
#ifdef PLEXUS_HAVE_DISTRIBUTED
  if (a.distributed)
    std::printf("distributed: %d ranks over %s, %lld rows per rank and step (global batch %lld)\n",
                world.size, world.group->backend_for(device.type).c_str(),
                static_cast<long long>(a.batch), static_cast<long long>(a.batch * world.size));
#endif
  auto t0 = std::chrono::steady_clock::now();
  Data d = make_data(a, device);
  std::printf("data: 1000 samples x 10 features, %lld train / %lld test, standardized\n",
              static_cast<long long>(d.x_train.size(0)), static_cast<long long>(d.x_test.size(0)));

  std::vector<EpochLosses> mean_losses(size_t(a.epochs), {0, 0});
  Generator gen(a.seed + 1);
  std::vector<data::Fold> folds = data::kfold(d.x_train.size(0), a.folds, &gen);
  cli::Progress progress(std::cout, cli::Progress::stdout_is_tty());
  const size_t total_epochs = size_t(a.epochs) * (folds.size() + 1);
  size_t done = 0;
  CompileTotals totals;
  for (size_t k = 0; k < folds.size(); ++k) {
    Tensor xt = data::take_rows(d.x_train, folds[k].train), yt = data::take_rows(d.y_train, folds[k].train);
    Tensor xv = data::take_rows(d.x_train, folds[k].validation),
           yv = data::take_rows(d.y_train, folds[k].validation);
    Trainer t(gen, device, a, fmt::format("fold {} step", k + 1), world);
    train::SimpleNN& model = t.model;
    for (int e = 0; e < a.epochs; ++e) {
      double train = train_epoch(t, xt, yt, a.batch, gen);
      double val = evaluate(model, xv, yv);
      mean_losses[size_t(e)].train += train / double(folds.size());
      mean_losses[size_t(e)].validation += val / double(folds.size());
      progress.update(++done, total_epochs, fmt::format("fold {}/{}, epoch {}/{}", k + 1,
                                                        folds.size(), e + 1, a.epochs));
    }
    progress.line(fmt::format("fold {}/{}: train loss {:.5f}, validation loss {:.5f}", k + 1,
                              folds.size(), evaluate(model, xt, yt),
                              evaluate(model, xv, yv)));
    totals.add(t);
  }
  // The final model: the whole training set, then the held-out test set.
  Trainer final_trainer(gen, device, a, "final step", world);
  train::SimpleNN& model = final_trainer.model;
  for (int e = 0; e < a.epochs; ++e) {
    train_epoch(final_trainer, d.x_train, d.y_train, a.batch, gen);
    progress.update(++done, total_epochs, fmt::format("final model, epoch {}/{}", e + 1, a.epochs));
  }
  progress.clear();
  totals.add(final_trainer);
  Tensor prediction;
  {
    NoGradGuard no_grad;
    prediction = model(d.x_test);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("cross-validation (%d folds, %d epochs): last epoch train loss %.5f, validation "
              "loss %.5f\n",
              a.folds, a.epochs, mean_losses.back().train, mean_losses.back().validation);
  std::printf("Test MSE: %.5f\n", data::mse(prediction, d.y_test));
  std::printf("Test R^2: %.5f\n", data::r2_score(prediction, d.y_test));
  std::printf("time: %.2f s on %s%s\n", seconds, device.str().c_str(),
              a.compile ? ", compiled" : "");
  if (a.compile)
    std::printf("compiled steps: %llu replayed, %llu captured, %llu eager\n",
                static_cast<unsigned long long>(totals.replays),
                static_cast<unsigned long long>(totals.captures),
                static_cast<unsigned long long>(totals.eager));

  if (!report) return 0;
  std::filesystem::path dir =
      a.out.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(a.out);
  std::filesystem::create_directories(dir);
  std::vector<train::Curve> curves(2);
  curves[0].name = "train (mean over folds)";
  curves[1].name = "validation (mean over folds)";
  for (const EpochLosses& l : mean_losses) {
    curves[0].values.push_back(l.train);
    curves[1].values.push_back(l.validation);
  }
  train::write_svg(dir / "plexus-train-losses.svg",
                   fmt::format("SimpleNN, Adam, {}-fold cross-validation on {}", a.folds,
                               device.str()),
                   curves);
  train::write_csv(dir / "plexus-train-losses.csv", curves);
  std::printf("loss curves: %s (open it in a browser), numbers: %s\n",
              (dir / "plexus-train-losses.svg").c_str(), (dir / "plexus-train-losses.csv").c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains the seed's network with Adam under K-fold cross-validation on the device "
               "plexus.toml picks, and scores it on a held-out test set."};
  Args a;
  app.add_option("--config", a.config, "plexus.toml to use (default: the Runtime's search)")
      ->check(CLI::ExistingFile);
  app.add_option("--epochs", a.epochs, "epochs per fold and for the final model")
      ->check(CLI::Range(1, 100000));
  app.add_option("--folds", a.folds, "cross-validation folds")->check(CLI::Range(2, 100));
  app.add_option("--batch", a.batch, "mini-batch size")->check(CLI::Range(1, 100000));
  app.add_option("--seed", a.seed, "seed of the data, the split and the initial weights");
  app.add_option("--out", a.out, "folder for the loss curves (default: the temporary directory)");
  app.add_flag("--compile", a.compile,
               "compile each training step (plexus::compile): capture once, then replay");
  app.add_flag("--print-graphs", a.print_graphs,
               "with --compile: print each compiled graph as a table (also PLEXUS_PRINT_GRAPHS=1)")
      ->needs(app.get_option("--compile"));
  app.add_flag("--distributed", a.distributed,
               "train data-parallel across the ranks of mpirun -np N (--batch is per rank)");
  try {
    app.parse(argc, argv);
#ifndef PLEXUS_HAVE_DISTRIBUTED
    if (a.distributed)
      throw CLI::ValidationError("--distributed",
                                 "this build has no plexus::distributed (MPI was not found "
                                 "when it was configured: apt-get install libopenmpi-dev)");
#endif
    if (a.distributed && a.compile)
      throw CLI::ValidationError("--distributed",
                                 "cannot be combined with --compile yet: a compiled step cannot "
                                 "replay the gradient all-reduce");
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    return run(a);
  } catch (const Error& e) {
    std::fprintf(stderr, "plexus-example-train: %s\n", e.what());
    return 1;
  }
}
