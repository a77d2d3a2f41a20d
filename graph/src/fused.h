// The ops elementwise fusion takes, and the cpu kernel that runs a fused
// chain in one pass over memory.
#pragma once

#include <memory>
#include <vector>

#include "plexus/graph.h"

namespace plexus::graph {

enum class FusedCode : uint8_t {
  Add, Sub, Mul, Div, PowTT, PowTS, Neg, Abs, Relu, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid,
  Lerp, Addcmul, Addcdiv, GtS, Cast
};

struct FusedOpInfo {
  FusedCode code;
  std::vector<int> tensors;  // the argument positions of its tensor operands, in order
  int scalar = -1;           // the position of its Scalar argument (alpha, weight, value...)
  bool bool_result = false;  // gt: the result is a mask
};

// How fusion treats `op`, or null when it does not take it.
const FusedOpInfo* fused_op_info(const Operator& op);

// Runs a Fused node's members over float32 memory in chunks: each chunk of
// every input is loaded once, the chain runs in registers, and only what
// others read (and what the chain writes in place) is stored.
class FusedKernel {
 public:
  // `vals` holds the plan's tensor of every value; it must outlive the kernel.
  FusedKernel(const Graph& g, const Node& fused, const std::vector<Tensor>& vals);
  ~FusedKernel();
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plexus::graph
