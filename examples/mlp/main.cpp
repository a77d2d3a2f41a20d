// A small real application: a 3-layer perceptron (10 -> 64 -> 32 -> 1, ReLU)
// whose weights come from a safetensors file, run on a 1000x10 batch on the
// device plexus::Runtime picks from the config, then on the cpu. Prints the
// device, why it was chosen, the largest difference to the cpu and the time
// per batch.
//
//   plexus-example-mlp [--config plexus.toml] [WEIGHTS.safetensors]
//
// Without WEIGHTS it writes seeded weights to the temporary directory and says
// where. Exit status: 0 when the device's result matches the cpu's, 1 on an
// error or a mismatch, 2 for bad arguments, 77 when the configured device is
// not available (ctest counts that as skipped).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "mlp.h"
#include "plexus/ops.h"
#include "plexus/runtime.h"
#include "plexus/safetensors.h"

using namespace plexus;

namespace {

constexpr int64_t kBatch = 1000;
constexpr uint32_t kWeightSeed = 42, kInputSeed = 7;
constexpr int kRuns = 50;
constexpr double kTolerance = 1e-3;

struct Args {
  std::string config;   // empty: the Runtime's usual search
  std::string weights;  // empty: write seeded weights
};

// The model's output on `device` and the median time of one batch, in ms
// (the median: this machine's other work shows up as outliers).
struct Run {
  Tensor output;  // on the cpu
  double ms_per_batch = 0;
};
Run run_on(Device device, const mlp::Weights& weights, const Tensor& inputs) {
  mlp::Weights w = mlp::to_device(weights, device);
  Tensor x = inputs.to(device);
  Tensor y = mlp::forward(w, x).cpu();  // warm-up: primitives, caches, first allocations
  std::vector<double> ms;
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    y = mlp::forward(w, x).cpu();  // to the host: waits for the device
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + kRuns / 2, ms.end());
  return {y, ms[kRuns / 2]};
}

std::string weights_file(const Args& args) {
  if (!args.weights.empty()) return args.weights;
  std::filesystem::path p =
      std::filesystem::temp_directory_path() / "plexus-mlp-weights.safetensors";
  save_safetensors(
      p, mlp::seeded_weights(kWeightSeed),
      {{"model", "plexus examples/mlp 10-64-32-1"}, {"seed", std::to_string(kWeightSeed)}});
  std::printf("no weights file given: wrote seeded weights (seed %u) to %s\n", kWeightSeed,
              p.c_str());
  return p.string();
}

// Indents every line of `text` by two spaces.
std::string indented(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

int run(const Args& args) {
  load_config(args.config);  // a bad config is an error (1), before the device check (77)
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(RuntimeOptions{args.config});
  } catch (const Error& e) {
    if (e.code() != ErrorCode::NotFound) throw;
    std::fprintf(stderr, "plexus-example-mlp: the configured device is not available: %s\n",
                 e.what());
    return 77;
  }
  Device device = runtime->device();
  std::printf("device: %s, as the Runtime explains:\n%s\n", device.str().c_str(),
              indented(runtime->explain()).c_str());

  std::string path = weights_file(args);
  mlp::Weights weights = mlp::load_weights(path);
  Tensor inputs = mlp::seeded_inputs(kBatch, kInputSeed);
  std::printf("mlp %lld -> %lld -> %lld -> %lld, weights %s, batch %lldx%lld\n",
              static_cast<long long>(mlp::kWidths[0]), static_cast<long long>(mlp::kWidths[1]),
              static_cast<long long>(mlp::kWidths[2]), static_cast<long long>(mlp::kWidths[3]),
              path.c_str(), static_cast<long long>(kBatch),
              static_cast<long long>(mlp::kWidths[0]));

  Run on_device = run_on(device, weights, inputs);
  Run on_cpu = run_on(Device(), weights, inputs);
  double max_diff = amax(abs(on_device.output - on_cpu.output)).item<double>();
  std::printf("  on %s (chosen): %.3f ms per batch (median of %d)\n", device.str().c_str(),
              on_device.ms_per_batch, kRuns);
  std::printf("  on cpu (reference): %.3f ms per batch\n", on_cpu.ms_per_batch);
  std::printf("  output sum %.6f, max |difference| to the cpu %.3g\n",
              sum(on_device.output).item<double>(), max_diff);
  if (!(max_diff <= kTolerance)) {
    std::fprintf(stderr, "plexus-example-mlp: %s differs from the cpu by %g (tolerance %g)\n",
                 device.str().c_str(), max_diff, kTolerance);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A 3-layer perceptron on the device plexus.toml picks, checked against the cpu."};
  Args args;
  app.add_option("--config", args.config,
                 "plexus.toml to use (default: PLEXUS_CONFIG, ./plexus.toml, "
                 "$XDG_CONFIG_HOME/plexus/plexus.toml, built-in defaults)")
      ->check(CLI::ExistingFile);
  app.add_option("weights", args.weights,
                 "safetensors file with fc1..fc3 .weight and .bias (default: write seeded "
                 "weights to the temporary directory)")
      ->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help, or the error and a pointer to --help
    return code == 0 ? 0 : 2;
  }
  try {
    return run(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "plexus-example-mlp: %s\n", e.what());
    return 1;
  }
}
