// Graph passes, run on a capture before it is compiled.
#pragma once

#include <deque>
#include <vector>

#include "plexus/graph.h"
#include "plexus/op.h"

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

// Calls f with every value a call node writes: each argument its schema marks
// Tensor(a!), list elements included (an op may write several: Note [Ops that
// write several tensors], dispatcher/README.md).
template <typename F>
void for_each_written(const Node& n, F&& f) {
  if (n.kind != NodeKind::Call || n.op->written_arg() < 0) return;
  const auto& schema = n.op->schema().arguments;
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (!schema[i].alias || !schema[i].alias->is_write) continue;
    if (n.args[i].kind == Arg::Kind::Value) f(n.args[i].value);
    if (n.args[i].kind == Arg::Kind::ValueList)
      for (int v : n.args[i].values) f(v);
  }
}

// The Value an argument passes: a tensor argument refers to vals[value]
// (Values do not own tensors: vals must outlive it and not reallocate); a
// tensor list is kept in `lists`. (plan.cpp)
Value bind_arg(const Arg& a, const std::vector<Tensor>& vals,
               std::deque<std::vector<Tensor>>& lists);

// Removes ops whose work nobody observes: pure ops (no Tensor(a!) argument)
// whose result is never read, and writes into memory made during the call
// that is never read afterwards. Writes into inputs and tensors made before
// the call always stay. Returns the number of ops removed.
int eliminate_dead_code(Graph& g);

// Computes each pure op once per distinct arguments: a later op with the same
// op, arguments and unchanged inputs reads the first one's result. Returns the
// number of ops removed.
int eliminate_common_subexpressions(Graph& g);

// Runs pure ops whose every tensor argument is a constant (host data made
// during the call, C++ numbers, or a result folded before) once, at compile
// time: the result becomes a constant of the graph. Two captures agree only
// when their constants are equal by value, so it is what each replay would
// compute. Memory some op writes is left alone. Returns the number of ops
// folded.
int fold_constants(Graph& g);

// Groups chains of elementwise float32 ops of one shape on the cpu into Fused
// nodes (fuse.cpp). Returns the number of ops fused.
int fuse_elementwise(Graph& g);

struct PassStats {
  int folded = 0, cse = 0, dce = 0, fused = 0;
};
PassStats optimize(Graph& g);

}  // namespace plexus::graph
