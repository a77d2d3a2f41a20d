#include "plexus/profiler.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>

#include "plexus/dispatcher.h"
#include "plexus/env.h"
#include "layers/profiler_env.h"

namespace plexus::profiler {
namespace {

struct Stats {
  uint64_t calls = 0, total_ns = 0;
};

// Where a record is kept: the device as type << 16 | index, and bit 30 set
// for backward work.
int place(Device device) {
  return device.type << 16 | (device.index & 0xffff) | (in_backward() ? 1 << 30 : 0);
}
Device device_of(int place) {
  return Device(static_cast<DeviceType>((place >> 16) & 0x3fff),
                static_cast<int16_t>(place & 0xffff));
}
bool backward_of(int place) {
  return (place & (1 << 30)) != 0;
}

struct Recorder {
  std::mutex mutex;
  std::map<std::pair<const Operator*, int>, Stats> stats;  // (op, place)
  std::map<std::pair<std::string, int>, Stats> named;      // record(): (name, place)
};

thread_local bool t_backward = false;

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
  Stats& s = r.stats[{&op, place(keys.device)}];
  s.calls++;
  s.total_ns += static_cast<uint64_t>(ns);
  return result;
}

// Takes the dispatcher as an argument: it also runs while Dispatcher::get() builds it.
void install(Dispatcher& d) {
  static bool done = [&] {
    d.set_layer_kernel(Layer::Profiler, profile_layer, nullptr);
    return true;
  }();
  (void)done;
}

std::string& profile_dir() {
  static std::string* dir = new std::string;  // read at exit: never destroyed
  return *dir;
}

// Written to a temporary name and renamed, so a reader never sees half a file.
void write_profile_file() {
  std::filesystem::path dir = profile_dir();
  std::string name = fmt::format("plexus-profile-{}.json", getpid());
  std::filesystem::path tmp = dir / (name + ".tmp");
  std::error_code ec;
  {
    std::ofstream f(tmp);
    f << records_json();
    f.close();
    if (f.good()) std::filesystem::rename(tmp, dir / name, ec);
    if (!f.good() || ec)
      std::fprintf(stderr, "plexus: PLEXUS_PROFILE=%s: cannot write the profile %s there: %s\n",
                   dir.c_str(), name.c_str(),
                   f.good() ? ec.message().c_str() : "expected a writable directory");
  }
  std::filesystem::remove(tmp, ec);
}

}  // namespace

void enable(bool on) {
  install(Dispatcher::get());
  Dispatcher::get().enable_layer(Layer::Profiler, on);
}

void start_from_environment(Dispatcher& d) {
  std::optional<std::string> dir = env_var("PLEXUS_PROFILE");
  if (!dir || dir->empty()) return;
  profile_dir() = *dir;
  install(d);
  d.enable_layer(Layer::Profiler, true);
  std::atexit(write_profile_file);
}

bool enabled() { return Dispatcher::get().layer_enabled(Layer::Profiler); }

void reset() {
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  r.stats.clear();
  r.named.clear();
}

void record(std::string_view name, Device device, uint64_t ns) {
  if (!enabled()) return;
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  Stats& s = r.named[{std::string(name), place(device)}];
  s.calls++;
  s.total_ns += ns;
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
      Device device = device_of(key.second);
      Record rec{key.first->name(), device.str(), s.calls, s.total_ns, 0, backward_of(key.second)};
      // Fallbacks are counted per op and backend, not per pass: the forward record has them.
      auto it = fallbacks.find({key.first->kernel_op().name(),
                                std::string(device_type_name(device.type))});
      if (it != fallbacks.end() && !rec.backward) rec.fallbacks = it->second;
      out.push_back(std::move(rec));
    }
    for (auto& [key, s] : r.named)
      out.push_back(Record{key.first, device_of(key.second).str(), s.calls, s.total_ns, 0,
                           backward_of(key.second)});
  }
  std::sort(out.begin(), out.end(),
            [](const Record& a, const Record& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::string records_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const Record& r : records())
    list.push_back({{"op", r.op},
                    {"device", r.device},
                    {"calls", r.calls},
                    {"total_ns", r.total_ns},
                    {"fallbacks", r.fallbacks},
                    {"backward", r.backward}});
  return nlohmann::json{{"pid", getpid()}, {"records", list}}.dump(1) + "\n";
}

std::string report() {
  std::string s = fmt::format("{:<28} {:<12} {:<9} {:>10} {:>12} {:>12} {:>10}\n", "op",
                              "device", "pass", "calls", "total ms", "mean us", "fallbacks");
  for (const Record& r : records())
    s += fmt::format("{:<28} {:<12} {:<9} {:>10} {:>12.3f} {:>12.3f} {:>10}\n", r.op, r.device,
                     r.backward ? "backward" : "forward", r.calls, r.total_ns / 1e6,
                     r.calls ? r.total_ns / 1e3 / r.calls : 0.0, r.fallbacks);
  return s;
}

BackwardScope::BackwardScope() : prev_(t_backward) {
  t_backward = true;
}
BackwardScope::~BackwardScope() {
  t_backward = prev_;
}
bool in_backward() {
  return t_backward;
}

}  // namespace plexus::profiler
