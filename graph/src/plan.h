// A compiled graph: memory of its own for every value the call makes, and
// the ops with their arguments bound to it, ready to replay.
#pragma once

#include <cstdint>
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
  // results as fresh tensors. A differentiable graph replays its forward
  // part only.
  std::vector<Tensor> run(std::span<const Tensor> inputs);
  // Differentiable graphs: replays the backward part after run(), from the
  // gradients of Graph::grad_results (defined, of the results' shapes and
  // dtypes); returns the gradients for Graph::grad_targets. Throws when a
  // tensor it reads from the forward (an input, a large result) was changed
  // in place since.
  std::vector<Tensor> run_backward(std::span<const Tensor> grads);
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
  // Binds inputs [first, first + inputs.size()), runs steps [begin, end),
  // and returns outputs [out_begin, out_end).
  std::vector<Tensor> run_part(std::span<const Tensor> inputs, size_t first, size_t begin,
                               size_t end, size_t out_begin, size_t out_end, int phase);
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
  // Differentiable graphs: the first backward step, the forward's inputs and
  // outputs, the phase (0 forward, 1 backward) whose outputs make each fresh
  // root, and the forward's memory the backward reads that the caller also
  // holds (bound inputs, large results), with its version after the forward.
  size_t backward_step_ = SIZE_MAX;
  size_t forward_inputs_ = 0, forward_outputs_ = 0;
  std::vector<int> fresh_phase_;
  std::vector<int> shared_roots_;
  std::vector<std::pair<Storage, uint64_t>> shared_versions_;
  bool forward_ran_ = false;
};

}  // namespace plexus::graph
