// Graph passes, run on a capture before it is compiled.
#pragma once

#include "plexus/graph.h"

namespace plexus::graph {

// Calls f with every value node n reads or names: its tensor arguments, a
// fused node's reads, the function's outputs, a gradient's leaf and value.
template <typename F>
void for_each_value(const Node& n, F&& f) {
  for (const Arg& a : n.args) {
    if (a.kind == Arg::Kind::Value) f(a.value);
    if (a.kind == Arg::Kind::ValueList)
      for (int v : a.values) f(v);
  }
  for (int v : n.reads) f(v);
  for (int v : n.outputs) f(v);
  if (n.kind == NodeKind::SetGrad) {
    f(n.target);
    if (n.value >= 0) f(n.value);
  }
}

// Removes ops whose work nobody observes: pure ops (no Tensor(a!) argument)
// whose result is never read, and writes into memory made during the call
// that is never read afterwards. Writes into inputs and tensors made before
// the call always stay. Returns the number of ops removed.
int eliminate_dead_code(Graph& g);

// Computes each pure op once per distinct arguments: a later op with the same
// op, arguments and unchanged inputs reads the first one's result. Returns the
// number of ops removed.
int eliminate_common_subexpressions(Graph& g);

// Groups chains of elementwise float32 ops of one shape on the cpu into Fused
// nodes (fuse.cpp). Returns the number of ops fused.
int fuse_elementwise(Graph& g);

struct PassStats {
  int cse = 0, dce = 0, fused = 0;
};
PassStats optimize(Graph& g);

}  // namespace plexus::graph
