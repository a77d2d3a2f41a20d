// Dispatch overhead: ns per call of a 1-element add through the whole
// dispatcher (keys, meta function, output checks or allocation, kernel lookup)
// to a trivial kernel, registered in-process and then, through the C ABI, by
// the bench_abi plugin; and the time to discover, load and initialise plugins.
// Usage: plexus-bench-dispatch [--json] [--iters N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plexus/dispatcher.h"
#include "plexus/ops.h"
#include "plexus/plugins.h"

using namespace plexus;

namespace {

// The least a kernel can do: one float add, contiguous 1-element tensors.
void trivial_add(void*, KernelCall& call) {
  const float a = *static_cast<const float*>(call.args[0].to_tensor().data_ptr());
  const float b = *static_cast<const float*>(call.args[1].to_tensor().data_ptr());
  *static_cast<float*>(call.args[3].to_tensor().data_ptr()) = a + b;
}

// Best of 5 runs of `iters` calls, in ns per call (the minimum is the least noisy on a shared machine).
template <typename F>
double ns_per_call(long iters, F&& f) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  long iters = 1000000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) json = true;
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atol(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--json] [--iters N]\n", argv[0]);
      return 2;
    }
  }
  Dispatcher::get().register_kernel("add.out", kCPU, trivial_add, nullptr, {DType::F32},
                                    "bench", true);
  Tensor a = ones({1}), b = ones({1}), out = empty({1});
  for (int i = 0; i < 1000; ++i) add(a, b);  // warm the allocator cache

  struct Row {
    const char* name;
    double ns;
  };
  std::vector<Row> rows = {
      {"add_1elem_out", ns_per_call(iters, [&] { add_out(out, a, b); })},
      {"add_1elem_alloc", ns_per_call(iters, [&] { Tensor c = add(a, b); })},
      {"empty_1elem", ns_per_call(iters, [&] { Tensor c = empty({1}); })},
  };

  // The same kernel behind the C ABI: the bench_abi plugin registers it.
  Dispatcher::get().unregister_kernel("add.out", kCPU);
  PluginLoadOptions only_bench;
  only_bench.search_paths = {PLEXUS_BENCH_PLUGIN_DIR};
  only_bench.use_environment = false;
  only_bench.use_default_paths = false;
  auto l0 = std::chrono::steady_clock::now();
  auto records = load_plugins(only_bench);
  auto l1 = std::chrono::steady_clock::now();
  if (records.size() != 1 || records[0].state != PluginRecord::State::Loaded) {
    std::fprintf(stderr, "bench_abi plugin did not load from %s: %s\n", PLEXUS_BENCH_PLUGIN_DIR,
                 records.empty() ? "not found" : records[0].reason.c_str());
    return 1;
  }
  rows.push_back({"load_one_plugin", std::chrono::duration<double, std::nano>(l1 - l0).count()});
  rows.push_back({"add_1elem_out_abi", ns_per_call(iters, [&] { add_out(out, a, b); })});
  rows.push_back({"add_1elem_alloc_abi", ns_per_call(iters, [&] { Tensor c = add(a, b); })});
  unload_plugins();

  // Discover, load and initialise every plugin of the build (the default
  // search path, as `plexus devices` does), then unload: one run, cold.
  auto t0 = std::chrono::steady_clock::now();
  PluginLoadOptions build_plugins;
  build_plugins.use_environment = false;
  std::vector<PluginRecord> build_records = load_plugins(build_plugins);
  size_t found = build_records.size();
  auto t1 = std::chrono::steady_clock::now();
  unload_plugins();
  for (const PluginRecord& r : build_records)  // where the time went
    std::fprintf(stderr, "load_build_plugins: %-8s %8.2f ms (%s)\n", r.name.c_str(), r.load_ms,
                 plugin_state_name(r.state));
  rows.push_back({"load_build_plugins", std::chrono::duration<double, std::nano>(t1 - t0).count()});
  std::fprintf(stderr, "load_build_plugins: %zu plugin(s) found on the default path\n", found);
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < rows.size(); ++i)
      std::printf("%s{\"name\": \"%s\", \"device\": \"cpu\", \"ns_per_op\": %.1f, \"gbps\": null, "
                  "\"gflops\": null}",
                  i ? ", " : "", rows[i].name, rows[i].ns);
    std::printf("]\n");
  } else {
    std::printf("%-20s %-8s %14s\n", "name", "device", "ns/call");
    for (const Row& r : rows) std::printf("%-20s %-8s %14.1f\n", r.name, "cpu", r.ns);
  }
  return 0;
}
