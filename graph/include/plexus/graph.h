// Graph capture and replay: plexus::compile records what a function does as a
// graph of catalog ops (forward, backward and optimizer alike) and replays it.
//
//   auto step = plexus::compile([&](const Tensor& x, const Tensor& y) {
//     Tensor loss = mse_loss(model(x), y);
//     opt.zero_grad(); loss.backward(); opt.step();
//     return loss;
//   });
//   Tensor loss = step(x, y);  // captures until two calls agree, then replays
//
// How it works. A call runs the function eagerly with the Trace dispatch layer
// on (below Autograd): every op that reaches it becomes a node, every tensor a
// value that knows where its memory comes from: an input, a tensor made before
// the call (a parameter, optimizer state: "get_attr"), a number or host data
// made during the call ("constant"), or an op of the graph. Views are values of
// the same memory. Setting a leaf's gradient (zero_grad, backward) is recorded
// too. When two captures of the same input signature agree node for node, the
// graph is compiled into a plan with memory of its own and replayed from then
// on: the function itself no longer runs.
//
// What a compiled function may do, and what replay guarantees:
// - Host values baked into ops (a Scalar, a C++ number) are constants. Values
//   that change from call to call must be 0-d tensors the function reads (the
//   learning rate: optim::AdamOptions::capturable). Two captures that differ
//   in a constant never compile: the function runs eagerly and the log says
//   which node and which argument changed.
// - Host control flow is frozen at capture: a branch on host state (a step
//   counter in C++) must not change what the function does once compiled.
//   CompileOptions::verify_every re-captures now and then to check it.
// - A host read of a tensor's values (item(), tolist()) during capture breaks
//   the graph: that input signature then always runs eagerly, and the log says
//   where. C++ cannot resume a function half-way, so the part before the read
//   is not compiled on its own (PyTorch's dynamo can, for Python bytecode).
// - Results that require grad can be differentiated, as eager ones: the
//   capture also records the backward of those results (AOT, before any
//   gradient is asked for), and each replay returns them as outputs of one
//   autograd node, CompiledFunctionBackward, whose backward replays that
//   part. Gradients flow on to the inputs and to tensors made before the
//   call (parameters). A function that runs backward itself (a training
//   step: it sets gradients) returns its results without history.
// - Gradients the function sets live in memory the compiled graph reuses on
//   the next call (as with CUDA graphs): copy one if it must survive the
//   next call.
// - Tensors the function stores outside itself, other than gradients, are not
//   updated by replays (the function does not run): return them instead.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "plexus/autograd.h"
#include "plexus/scalar.h"
#include "plexus/tensor.h"

namespace plexus {
class Operator;
class Generator;
}

namespace plexus::graph {

// Where the memory of a value comes from.
enum class RootKind : uint8_t {
  Input,     // the function's argument `index`
  External,  // a tensor that existed before the call (parameter, optimizer state)
  Constant,  // made during the call without an op: a C++ number, host data
  Empty,     // allocated during the call and first written by an op
  Result,    // made by the op of node `index`
};

struct Root {
  RootKind kind;
  int index = -1;      // input number, or the node that made it
  size_t nbytes = 0;   // bytes of the memory
  Device device;
  Tensor held;         // External and Constant: the tensor itself (the graph keeps it alive)
  std::string name;    // External: the name CompileOptions::names gave it, if any
  int value = -1;      // the first value seen of this memory
  // Input: the input's storage offset at capture. Offsets of an input's
  // values are relative to it (a batch cut from a larger tensor at a new
  // place each call is the same graph).
  int64_t base_offset = 0;
};

// One tensor of the graph: a strided view of a root's memory.
struct ValueInfo {
  int root;
  DType dtype;
  Shape sizes, strides;
  int64_t offset;  // in elements (for inputs: from the input's first element)
  bool wrapped_number = false;  // a C++ number passed as a tensor
};

// One argument of a call node.
struct Arg {
  enum class Kind : uint8_t { None, Value, ValueList, Scalar, Int, IntList, Double, Bool, String,
                              DType, Device };
  Kind kind = Kind::None;
  int value = -1;               // Value
  std::vector<int> values;      // ValueList
  Scalar scalar;                // Scalar
  int64_t i = 0;                // Int
  std::vector<int64_t> ints;    // IntList
  double d = 0;                 // Double
  bool b = false;               // Bool
  std::string str;              // String
  DType dtype = DType::F32;     // DType
  Device device;                // Device
  // Int: a random op's offset, drawn from Graph::generators[generator]; `i`
  // is then its position relative to the call's first draw from it (-1: a
  // plain integer).
  int generator = -1;
  bool operator==(const Arg& o) const;
};

// A random generator the call drew from, and how many positions it took:
// each replay takes as many, so compiled and eager calls draw the same stream.
// The generator must outlive the compiled function (a module's own, such as
// Dropout's, lives as long as the module the function uses).
struct GeneratorUse {
  Generator* gen = nullptr;
  uint64_t drawn = 0;
};

enum class NodeKind : uint8_t {
  Placeholder,  // an input of the function
  GetAttr,      // a tensor made before the call
  Constant,     // a tensor made on the host during the call
  Empty,        // memory allocated during the call
  View,         // another view of a value's memory
  Call,         // a catalog op
  SetGrad,      // leaf.grad = value (or cleared when value is -1)
  Output,       // the function's results
  Fused,        // a chain of elementwise ops (members) run as one pass over memory
  Backward,     // differentiable graphs: the nodes after it are the backward part
};
std::string_view node_kind_name(NodeKind k);

struct Node {
  NodeKind kind;
  std::string name;           // unique in the graph: "addmm_1"
  const Operator* op = nullptr;  // Call
  std::vector<Arg> args;      // Call: one per schema argument; View: the base value
  int value = -1;             // the value this node makes or returns (-1: none)
  int target = -1;            // SetGrad: the leaf's value
  std::vector<int> outputs;   // Output
  Device device;              // Call: where it runs
  Tensor leaf;                // SetGrad: the leaf whose gradient is set
  std::vector<Node> members;  // Fused: the ops, in order
  std::vector<int> reads;     // Fused: values it reads that other nodes made
  std::vector<int> stores;    // Fused: values its members make that others read
};

// Where one gradient of a differentiable graph goes.
struct GradTarget {
  int input = -1;       // input `input`: its gradient edge at each call
  autograd::Edge edge;  // else (input -1): this edge, of a tensor made before the call
};

class Graph {
 public:
  std::vector<Root> roots;
  std::vector<ValueInfo> values;
  std::vector<Node> nodes;
  std::vector<int> value_node;  // the node that names each value
  std::vector<GeneratorUse> generators;  // in the order of first draw
  // A differentiable graph (results that require grad, and a function that
  // does not run backward itself) has a Backward node. The nodes after it
  // read one more placeholder per result in grad_results (that result's
  // gradient) and compute the Output node's outputs from forward_outputs on:
  // the gradients for grad_targets, in order.
  int forward_outputs = -1;  // -1: not differentiable
  std::vector<int> grad_results;
  std::vector<GradTarget> grad_targets;
  bool differentiable() const { return forward_outputs >= 0; }

  // Calls of catalog ops, counting those inside fused nodes.
  size_t num_calls() const;
  // What a replay launches: calls and fused nodes.
  size_t num_launches() const;
  // The name a value prints as ("addmm_1", or a literal for a C++ number).
  std::string value_name(int v) const;
  // The table torch.fx prints: opcode, name, target, args, kwargs, plus each
  // value's dtype and shape.
  std::string str() const;
  // Empty when both graphs do the same thing; otherwise the first difference,
  // in words ("node 31 (mul_.Tensor): argument 'other' is 0.9 in one call and 0.81 in the next").
  static std::string diff(const Graph& a, const Graph& b);
};

struct CompileOptions {
  // Called with each graph before it is compiled, like the seed's my_compiler.
  std::function<void(const Graph&)> backend;
  // Print each compiled graph's table to stdout (also: PLEXUS_PRINT_GRAPHS=1).
  bool print = false;
  // Names for tensors made before the call (parameters, optimizer state), by
  // memory. Their requires_grad is guarded too: freezing or unfreezing a
  // named parameter captures anew (for others, call reset()).
  std::vector<std::pair<std::string, Tensor>> names;
  // Input signatures (dtypes, shapes, strides, devices) kept compiled at once.
  size_t cache_size = 8;
  // Captures of one signature before giving up on a graph that keeps changing.
  int max_captures = 4;
  // When > 0, every verify_every-th replay runs the function again under
  // capture and checks that the graph is still the same (slow; for testing
  // that a function's host state does not change what it does).
  int verify_every = 0;
  // Let plugins that compile graphs (plugin ABI 1.1) take fused chains; off,
  // the host runs chains on cpu memory itself and elsewhere op by op.
  bool plugin_compilers = true;
  // Shown in log messages.
  std::string name = "compiled function";
};

struct TraceOptions {
  // Run every op's kernel, so that the function does its work as a plain call
  // would; off (the default): meta functions only.
  bool run_kernels = false;
  // Names for tensors made before the call (parameters, optimizer state), by memory.
  std::vector<std::pair<std::string, Tensor>> names;
};

// The graph of what `fn` does with these inputs, captured once as compile()
// captures a call, before any pass. Without kernels (the default) each op's
// meta function gives its result's dtype, shape and strides and no value is
// computed (plexus::MetaOnlyGuard):
// - results, and tensors the function writes in place, hold what they held
//   (parameters and optimizer state are not changed); fresh results hold
//   unspecified values;
// - kernels that read no tensor still run, so tensors made by factories
//   (zeros, full), an optimizer's new state among them, hold their values;
// - host code runs as usual (a host-side step count moves on);
// - gradients the function set are cleared afterwards (they were never
//   computed).
// Throws Unsupported, with the reason, when the capture breaks: a value read
// on the host (item(), tolist()), which without kernels is unspecified too.
Graph trace(const std::function<std::vector<Tensor>(std::span<const Tensor>)>& fn,
            std::span<const Tensor> inputs, const TraceOptions& options = {});

// What a compiled function did so far.
struct CompileStats {
  uint64_t captures = 0;     // calls that ran the function under capture
  uint64_t replays = 0;      // calls that replayed a compiled graph
  uint64_t eager_calls = 0;  // calls that ran the function plainly (a graph could not be made)
  uint64_t recaptures = 0;   // captures caused by a guard that failed (new signature, changed tensor)
};

// The type-erased compiled function; compile() wraps it for any arity.
class CompiledFunction {
 public:
  using Fn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;
  CompiledFunction(Fn fn, CompileOptions options);
  ~CompiledFunction();
  CompiledFunction(CompiledFunction&&) noexcept;
  CompiledFunction& operator=(CompiledFunction&&) noexcept;

  std::vector<Tensor> call(std::span<const Tensor> inputs);
  CompileStats stats() const;
  // The graph replayed for the last call's signature; null while there is none.
  const Graph* graph() const;
  // Why the last call ran eagerly; empty when it did not.
  std::string eager_reason() const;
  // Forgets every captured graph (after replacing tensors the function reads).
  void reset();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A compiled function of N tensors returning a Tensor, a std::vector<Tensor>
// or nothing.
template <typename F>
class Compiled {
 public:
  Compiled(F f, CompileOptions options)
      : fn_(std::make_shared<F>(std::move(f))),
        compiled_(erase(fn_), std::move(options)) {}

  template <typename... Ts>
  auto operator()(const Ts&... args) {
    static_assert((std::is_same_v<Ts, Tensor> && ...), "compiled functions take Tensors");
    using R = std::invoke_result_t<F&, const Ts&...>;
    const Tensor in[sizeof...(Ts) > 0 ? sizeof...(Ts) : 1] = {args...};
    std::vector<Tensor> out = compiled_.call(std::span<const Tensor>(in, sizeof...(Ts)));
    if constexpr (std::is_void_v<R>) return;
    else if constexpr (std::is_same_v<R, Tensor>) return out.at(0);
    else return out;
  }
  CompiledFunction& compiled() { return compiled_; }
  CompileStats stats() const { return compiled_.stats(); }
  const Graph* graph() const { return compiled_.graph(); }
  void reset() { compiled_.reset(); }

 private:
  static CompiledFunction::Fn erase(std::shared_ptr<F> f) {
    return [f](std::span<const Tensor> in) -> std::vector<Tensor> {
      return invoke(*f, in, std::make_index_sequence<Arity<F>::value>{});
    };
  }
  template <typename G>
  struct Arity : Arity<decltype(&G::operator())> {};
  template <typename C, typename R, typename... A>
  struct Arity<R (C::*)(A...) const> : std::integral_constant<size_t, sizeof...(A)> {};
  template <typename C, typename R, typename... A>
  struct Arity<R (C::*)(A...)> : std::integral_constant<size_t, sizeof...(A)> {};
  template <size_t... I>
  static std::vector<Tensor> invoke(F& f, std::span<const Tensor> in, std::index_sequence<I...>) {
    using R = std::invoke_result_t<F&, decltype((void(I), std::declval<const Tensor&>()))...>;
    if constexpr (std::is_void_v<R>) {
      f(in[I]...);
      return {};
    } else if constexpr (std::is_same_v<R, Tensor>) {
      return {f(in[I]...)};
    } else {
      return f(in[I]...);
    }
  }
  std::shared_ptr<F> fn_;
  CompiledFunction compiled_;
};

// Compiles `f`, a callable taking Tensors (a lambda; not a generic one).
template <typename F>
Compiled<std::decay_t<F>> compile(F&& f, CompileOptions options = {}) {
  return Compiled<std::decay_t<F>>(std::forward<F>(f), std::move(options));
}

}  // namespace plexus::graph

namespace plexus {
using graph::compile;
using graph::CompileOptions;
using graph::trace;
using graph::TraceOptions;
}  // namespace plexus
