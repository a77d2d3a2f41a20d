// The ops elementwise fusion takes, and the host's kernel for a fused chain
// on cpu memory when no plugin compiles it (plexus/sdk/fused.hpp does the work).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "plexus/graph.h"
#include "plexus/op.h"
#include "plexus/sdk/fused.hpp"

namespace plexus::graph {

// How fusion treats `op`, or null when it does not take it.
const sdk::FusedOp* fused_op_info(const Operator& op);

// The values a chain's members read that none of the members before made
// (a Fused node's `reads`), in the order first read.
inline std::vector<int> chain_reads(const std::vector<Node>& members) {
  std::vector<int> reads, made;
  for (const Node& m : members) {
    for (const Arg& a : m.args)
      if (a.kind == Arg::Kind::Value &&
          std::find(made.begin(), made.end(), a.value) == made.end() &&
          std::find(reads.begin(), reads.end(), a.value) == reads.end())
        reads.push_back(a.value);
    if (m.value >= 0) made.push_back(m.value);
  }
  return reads;
}

// A matrix product a chain may start with ("addmm", "mm"): the chain's
// other ops are its epilogue, over its result.
inline bool is_chain_product(const Node& n) {
  return n.kind == NodeKind::Call && sdk::is_fused_product(n.op->name());
}

// A Fused node's chain (sdk::FusedChain), bound to the plan's tensors anew
// for each run (a result's memory may change between replays).
class FusedKernel {
 public:
  // `vals` holds the plan's tensor of every value; it must outlive the kernel.
  FusedKernel(const Graph& g, const Node& fused, const std::vector<Tensor>& vals);
  ~FusedKernel();
  void run();

 private:
  struct Slot {
    const Tensor* tensor;
    std::vector<int64_t> strides;  // over the chain's shape, 0 where broadcast
    bool is_bool;
  };
  std::unique_ptr<sdk::FusedChain> chain_;
  std::vector<Slot> inputs_, outputs_;
  bool bound_ = false;
};


}  // namespace plexus::graph
