// The dispatcher's private state, shared by its implementation files.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>

#include "plexus/dispatcher.h"

namespace plexus {

struct Dispatcher::State {
  mutable std::shared_mutex ops_mutex;  // guards `ops` growth and `by_name`
  std::deque<Operator> ops;             // stable addresses
  std::unordered_map<std::string, Operator*> by_name;

  std::mutex kernels_mutex;              // serializes registration
  std::deque<KernelEntry> entries;       // never freed: lock-free readers may hold one
  std::deque<std::string> sources;

  std::array<std::atomic<LayerFn>, kNumLayers> layer_fns{};
  std::array<void*, kNumLayers> layer_ctx{};
  std::atomic<LayerSet> enabled_layers{0};

  std::atomic<FallbackPolicy> fallback{FallbackPolicy::Cpu};
  mutable std::mutex fallback_mutex;
  std::map<std::pair<std::string, std::string>, uint64_t> fallback_counts;  // (op, backend)
  std::set<std::tuple<std::string, std::string, DType>> fallback_warned;    // (op, backend, dtype)
};

// Thread-local include/exclude sets of layers.
struct ThreadLayers {
  LayerSet include = 0;
  LayerSet exclude = 0;
};
ThreadLayers& thread_layers();

// The backend step of a call: meta, output, kernel, composite or fallback.
Tensor run_backend(Dispatcher::State& state, const Operator& op, Device device,
                   std::span<const Value> args);

}  // namespace plexus
