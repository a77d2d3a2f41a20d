#include "plexus/profiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "plexus/dispatcher.h"

namespace plexus::profiler {
namespace {

struct Stats {
  uint64_t calls = 0, total_ns = 0;
};

struct Recorder {
  std::mutex mutex;
  std::map<std::pair<const Operator*, int>, Stats> stats;  // (op, type << 16 | index)
};

Recorder& recorder() {
  static Recorder* r = new Recorder;
  return *r;
}

Tensor profile_layer(void*, const Operator& op, DispatchKeys keys, std::span<const Value> args,
                     Layer) {
  auto start = std::chrono::steady_clock::now();
  Tensor result = Dispatcher::get().redispatch(op, keys, args);
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start).count();
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  Stats& s = r.stats[{&op, keys.device.type << 16 | keys.device.index}];
  s.calls++;
  s.total_ns += static_cast<uint64_t>(ns);
  return result;
}

void install() {
  static bool done = [] {
    Dispatcher::get().set_layer_kernel(Layer::Profiler, profile_layer, nullptr);
    return true;
  }();
  (void)done;
}

}  // namespace

void enable(bool on) {
  install();
  Dispatcher::get().enable_layer(Layer::Profiler, on);
}

bool enabled() { return Dispatcher::get().layer_enabled(Layer::Profiler); }

void reset() {
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  r.stats.clear();
}

std::vector<Record> records() {
  std::map<std::pair<std::string, std::string>, uint64_t> fallbacks;
  for (const FallbackCount& f : Dispatcher::get().fallback_counts())
    fallbacks[{f.op, f.backend}] = f.count;
  std::vector<Record> out;
  {
    Recorder& r = recorder();
    std::lock_guard lock(r.mutex);
    for (auto& [key, s] : r.stats) {
      Device device(static_cast<DeviceType>(key.second >> 16),
                    static_cast<int16_t>(key.second & 0xffff));
      Record rec{key.first->name(), device.str(), s.calls, s.total_ns, 0};
      auto it = fallbacks.find({key.first->kernel_op().name(),
                                std::string(device_type_name(device.type))});
      if (it != fallbacks.end()) rec.fallbacks = it->second;
      out.push_back(std::move(rec));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Record& a, const Record& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::string report() {
  std::string s = fmt::format("{:<28} {:<12} {:>10} {:>12} {:>12} {:>10}\n", "op", "device",
                              "calls", "total ms", "mean us", "fallbacks");
  for (const Record& r : records())
    s += fmt::format("{:<28} {:<12} {:>10} {:>12.3f} {:>12.3f} {:>10}\n", r.op, r.device, r.calls,
                     r.total_ns / 1e6, r.calls ? r.total_ns / 1e3 / r.calls : 0.0, r.fallbacks);
  return s;
}

}  // namespace plexus::profiler
