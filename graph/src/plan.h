// A compiled graph: memory of its own for every value the call makes, and
// the ops with their arguments bound to it, ready to replay.
#pragma once

#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "plexus/dispatcher.h"
#include "fused.h"
#include "plexus/graph.h"

namespace plexus::graph {

class Plan {
 public:
  // Throws plexus::Error (Unsupported) naming what cannot be replayed.
  explicit Plan(Graph g, bool plugin_compilers = true);
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Replays the graph on new inputs (of the captured signature); returns the
  // results as fresh tensors.
  std::vector<Tensor> run(std::span<const Tensor> inputs);
  const Graph& graph() const { return g_; }
  // Ops whose kernel call was resolved once (no meta work on replay).
  size_t prepared() const;

 private:
  struct Step {
    const Operator* op = nullptr;  // null: a SetGrad
    std::vector<Value> args;
    std::deque<std::vector<Tensor>> lists;  // tensor lists the args point into
    DispatchKeys keys;
    std::unique_ptr<PreparedCall> prepared;
    std::unique_ptr<FusedKernel> fused;
    std::shared_ptr<struct PluginGraph> plugin_graph;  // compiled by the device's plugin  // the kernel call resolved once, when it can be
    int copy_result_to = -1;  // ops that return new memory (Direct, no out variant): copy it here
    Tensor leaf;              // SetGrad
    int grad = -1;            // SetGrad: the value, or -1 to clear
    std::string label;        // for the profiler: "compiled addmm.out"
    Device device;
    // Random ops: (argument index, generator, position relative to the
    // generator's first draw in the call), set anew for each replay.
    struct Offset {
      size_t arg;
      int generator;
      int64_t relative;
    };
    std::vector<Offset> offsets;
  };
  void run_step(Step& s);
  // The device's plugin compiles the Fused node, or null (it has no graph
  // compiler, or does not take every op).
  std::shared_ptr<PluginGraph> plugin_compile(const Node& fused);
  Graph g_;
  std::vector<Tensor> vals_;        // one private tensor per value; never reallocated
  std::vector<int> input_values_;   // the placeholder value of each input
  std::vector<bool> input_written_; // inputs some op writes: copied back after a replay
  std::vector<Step> steps_;
  bool plugin_compilers_ = true;
  std::vector<int> outputs_;
  std::vector<bool> fresh_;                   // roots whose memory changes each replay
  std::vector<bool> bound_;                   // inputs read where the caller has them
  std::vector<std::vector<int>> root_values_; // the values of each root
};

}  // namespace plexus::graph
