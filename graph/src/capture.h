// Capture: the Trace dispatch layer and what it records into a Graph.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "plexus/dispatcher.h"
#include "plexus/graph.h"

namespace plexus::graph {

class Capture {
 public:
  // Starts recording on this thread (one capture per thread at a time).
  Capture(std::span<const Tensor> inputs, const CompileOptions& options);
  // Stops recording (also when the function threw).
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // Records the backward of the results that require grad (autograd runs it
  // now, under capture, into gradient placeholders): the graph becomes
  // differentiable. Does nothing when no result requires grad. A backward
  // that cannot run breaks the graph.
  void differentiate(std::span<const Tensor> outputs);
  // Records the function's results; returns the finished graph.
  Graph finish(std::span<const Tensor> outputs);
  // Why the capture cannot become a graph (a host read, ...); empty when it can.
  const std::string& broken() const { return broken_; }

  // Every leaf whose gradient the call set, broken graph or not.
  const std::vector<Tensor>& grad_leaves() const { return grad_leaves_; }

  // The capture recording on this thread, or null.
  static Capture* current();

  // Called by the Trace layer, the host-read and the grad-set hooks.
  Tensor record_call(const Operator& op, DispatchKeys keys, std::span<const Value> args);
  void on_host_read(const Tensor& t, const char* what);
  void on_grad_set(const Tensor& leaf, const Tensor& grad);
  void on_generator_advance(Generator& gen, uint64_t first, uint64_t n);

 private:
  enum class Use : uint8_t { Read, Written };
  int value_of(const Tensor& t, Use use);
  int add_value(int root, const Tensor& t);
  int add_node(NodeKind kind, std::string base, int value);
  int add_root(Root r, const Tensor& t, NodeKind kind, std::string base);
  Arg arg_of(const Value& v, Use use);
  void mark_broken(std::string why);

  Graph g_;
  std::unordered_map<const TensorImpl*, int> by_impl_;
  std::unordered_map<const StorageImpl*, int> root_by_storage_;
  std::map<std::tuple<int, DType, Shape, Shape, int64_t>, int> by_view_;
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_map<const StorageImpl*, std::string> names_;
  std::vector<Tensor> keep_;  // every tensor seen: no address is reused while recording
  uint64_t start_serial_;
  uint64_t start_sequence_;                  // of autograd nodes: older ones are outside
  int num_inputs_ = 0;
  std::vector<autograd::Edge> input_edges_;  // each input's gradient edge, when it requires grad
  std::vector<Tensor> grads_;                // differentiate(): the gradients, for finish()
  int depth_ = 0;
  std::string broken_;
  // Random draws: each generator's first position in this call (by its index
  // in g_.generators), and the draws not yet matched to an op's offset
  // argument (absolute first position -> generator index).
  std::vector<uint64_t> generator_base_;
  std::vector<Tensor> grad_leaves_;
  std::map<uint64_t, int> draws_;
  Capture* prev_;
  std::unique_ptr<LayerGuard> thread_layers_saved_;
};

}  // namespace plexus::graph
