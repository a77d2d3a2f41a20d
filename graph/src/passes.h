// Graph passes, run on a capture before it is compiled.
#pragma once

#include "plexus/graph.h"

namespace plexus::graph {

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
