// plexus-bench: fixed cases through the public C++ API on one device (the cpu
// plugin by default), with peers measured in the same run beside them.
// Usage: plexus-bench [--json] [--config FILE] [--device NAME] [--filter GLOB]
//                     [--iters N] [--repeats N] [--quick]
// It opens a plexus::Runtime, so plexus.toml (the usual search, or --config)
// decides the plugins, their options and the device; --device overrides it.
// Each figure is the best of several timed runs after a warm-up call; a run
// is `iters` calls (calibrated to about 50 ms unless given) and a device sync.
// On a terminal a progress bar names the case being timed; `plexus bench`
// runs this program (tools/plexus/bench.cpp says why it is not a library).
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda_peers.h"
#include "plexus/device_backend.h"
#include "plexus/plugins.h"
#include "plexus/runtime.h"
#include "progress.h"

using namespace plexus;
using namespace plexus::bench;

namespace {

struct Options {
  bool json = false;
  std::string config;  // empty: the Runtime's search
  std::string device;  // empty: the device the config chooses
  std::string filter = "*";
  long iters = 0;  // 0: calibrate
  int repeats = 5;
};

const char* kUsage =
    "usage: plexus-bench [--json] [--config FILE] [--device NAME] [--filter GLOB] [--iters N] "
    "[--repeats N] [--quick]\n";

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (!std::strcmp(argv[i], "--json")) {
      o.json = true;
    } else if (!std::strcmp(argv[i], "--quick")) {  // one call per case: a smoke test
      o.iters = 1;
      o.repeats = 1;
    } else if (!std::strcmp(argv[i], "--config") && (v = value())) {
      o.config = v;
    } else if (!std::strcmp(argv[i], "--device") && (v = value())) {
      o.device = v;
    } else if (!std::strcmp(argv[i], "--filter") && (v = value())) {
      o.filter = v;
    } else if (!std::strcmp(argv[i], "--iters") && (v = value()) && std::atol(v) > 0) {
      o.iters = std::atol(v);
    } else if (!std::strcmp(argv[i], "--repeats") && (v = value()) && std::atoi(v) > 0) {
      o.repeats = std::atoi(v);
    } else {
      return false;
    }
  }
  return true;
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// ns per call of op, best of o.repeats runs; sync() waits for the device.
template <typename Sync>
double time_ns(const Op& op, const Options& o, Sync&& sync) {
  op();  // warm-up: caches, cached primitives, the allocator
  sync();
  long iters = o.iters;
  if (iters <= 0) {
    auto t0 = Clock::now();
    op();
    sync();
    iters = std::clamp(long(50e6 / std::max(since(t0), 1.0)), 1L, 10000000L);
  }
  double best = INFINITY;
  for (int r = 0; r < o.repeats; ++r) {
    auto t0 = Clock::now();
    for (long i = 0; i < iters; ++i) op();
    sync();
    best = std::min(best, since(t0) / double(iters));
  }
  return best;
}

struct Row {
  std::string name, device;
  double ns = NAN, gbps = NAN, gflops = NAN;
  std::string error;   // why the case did not run
  double ratio = NAN;  // peers: plexus's speed over the peer's
};

Row measure(const std::string& name, const std::string& device, double bytes, double flops,
            const std::function<Op()>& setup, const Options& o, const std::function<void()>& sync) {
  Row r{name, device};
  try {
    Op op = setup();
    r.ns = time_ns(op, o, sync);
    if (bytes > 0) r.gbps = bytes / r.ns;
    if (flops > 0) r.gflops = flops / r.ns;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string json_number(double v) {
  if (std::isnan(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += c;
  }
  return out + "\"";
}

void print_json(const std::vector<Row>& rows) {
  std::printf("[");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf(
        "%s\n  {\"name\": %s, \"device\": %s, \"ns_per_op\": %s, \"gbps\": %s, \"gflops\": %s",
        i ? "," : "", json_string(r.name).c_str(), json_string(r.device).c_str(),
        json_number(r.ns).c_str(), json_number(r.gbps).c_str(), json_number(r.gflops).c_str());
    if (!r.error.empty()) std::printf(", \"error\": %s", json_string(r.error).c_str());
    std::printf("}");
  }
  std::printf("\n]\n");
}

std::string human_time(double ns) {
  char buf[32];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

std::string format_row(const Row& r) {
  char line[512];
  if (!r.error.empty()) {
    std::snprintf(line, sizeof line, "%-32s %-8s error: %s", r.name.c_str(), r.device.c_str(),
                  r.error.c_str());
    return line;
  }
  char tput[32] = "";
  if (!std::isnan(r.gflops))
    std::snprintf(tput, sizeof tput, "%.1f GFLOP/s", r.gflops);
  else if (!std::isnan(r.gbps))
    std::snprintf(tput, sizeof tput, "%.1f GB/s", r.gbps);
  int n = std::snprintf(line, sizeof line, "%-32s %-8s %12s %16s", r.name.c_str(),
                        r.device.c_str(), human_time(r.ns).c_str(), tput);
  if (!std::isnan(r.ratio) && n > 0 && size_t(n) < sizeof line)
    std::snprintf(line + n, sizeof line - size_t(n), "   plexus/peer %.2f", r.ratio);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  std::optional<Runtime> runtime;
  Device dev;
  DeviceBackend* backend = nullptr;
  try {
    runtime.emplace(RuntimeOptions{o.config});
    for (const PluginRecord& r : runtime->plugins())
      if (r.state == PluginRecord::State::Failed)
        std::fprintf(stderr, "plugin %s failed to load: %s\n", r.name.c_str(), r.reason.c_str());
    dev = o.device.empty() ? runtime->device() : Device::parse(o.device);
    backend = &device_backend(dev.type);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plexus-bench: %s%s: %s\n", o.device.empty() ? "" : "device ",
                 o.device.empty() ? "runtime" : o.device.c_str(), e.what());
    return 2;
  }
  auto sync = [&] { backend->synchronize(dev.index); };
  auto no_sync = [] {};
  std::string device = dev.str();

  std::vector<Case> selected;
  for (Case& c : cases())
    if (fnmatch(o.filter.c_str(), c.name.c_str(), 0) == 0) selected.push_back(std::move(c));
  std::vector<Row> rows;
  bool failed = false, warned_cuda_peers = false;
  // Rows print as they come; on a terminal a bar says which case is being timed.
  plexus::cli::Progress progress(std::cout, plexus::cli::Progress::stdout_is_tty(),
                                 plexus::cli::Progress::terminal_width());
  auto add_row = [&](Row r) {
    failed |= !r.error.empty();
    if (!o.json) progress.line(format_row(r));
    rows.push_back(std::move(r));
  };
  char header[128];
  std::snprintf(header, sizeof header, "%-32s %-8s %12s %16s", "name", "device", "time",
                "throughput");
  if (!o.json) progress.line(header);
  for (size_t i = 0; i < selected.size(); ++i) {
    const Case& c = selected[i];
    progress.update(i, selected.size(), c.name);
    Row r = measure(
        c.name, device, c.bytes, c.flops, [&] { return c.setup(dev); }, o, sync);
    add_row(r);
    // Peers: the host's for the cpu, CUDA's own for a cuda device.
    std::vector<Peer> peers;
    if (dev.is_cpu()) {
      peers = c.peers;
    } else if (device_type_name(dev.type) == "cuda") {
      std::string why;
      peers = cuda_peers(c.name, int(dev.index), why);
      if (!why.empty() && !warned_cuda_peers) {
        std::fprintf(stderr, "plexus-bench: no CUDA peers: %s\n", why.c_str());
        warned_cuda_peers = true;
      }
    }
    for (const Peer& p : peers) {
      progress.update(i, selected.size(), c.name + "/" + p.name);
      std::function<void()> peer_sync = no_sync;
      Row pr = measure(
          c.name + "/" + p.name, device, c.bytes, c.flops,
          [&] {
            PeerOp po = p.setup();
            if (po.sync) peer_sync = po.sync;
            return po.op;
          },
          o, [&] { peer_sync(); });
      if (r.error.empty() && pr.error.empty()) pr.ratio = pr.ns / r.ns;
      add_row(pr);
    }
  }
  progress.clear();
  if (selected.empty()) std::fprintf(stderr, "plexus-bench: no case matches %s\n", o.filter.c_str());
  if (o.json) print_json(rows);
  rows.clear();
  runtime.reset();
  return failed || selected.empty() ? 1 : 0;
}
