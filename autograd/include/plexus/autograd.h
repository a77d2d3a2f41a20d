// Autograd: reverse-mode differentiation of plexus ops.
//
//   Tensor w = randn({10, 64}, DType::F64).requires_grad_();
//   Tensor loss = mse_loss(relu(linear(x, w, b)), y);
//   loss.backward();                  // w.grad() holds dloss/dw
//   { NoGradGuard g; w.sub_(w.grad() * lr); }
//
// While grad mode is on, every op whose inputs require grad records a Node
// (the op's derivative rule, the values it saved, edges to its inputs' nodes)
// and the result gets that node as grad_fn. backward() walks the nodes in
// reverse topological order on the caller's thread; each rule is written in
// catalog ops, so backward runs on whatever device holds the tensors.
// autograd/README.md describes the design and what is not done yet.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plexus/tensor.h"

namespace plexus {

class Operator;

namespace autograd {

class Node;

// An edge of the graph: gradient slot `input_nr` of `fn`.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// One recorded op (or a leaf's gradient accumulator). Its gradient arrives as
// one tensor; apply() returns one gradient per edge in next() (undefined: none).
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // "AddmmBackward", "AccumulateGrad".
  virtual std::string name() const = 0;
  // The gradients of the inputs, given the gradient of the output.
  virtual std::vector<Tensor> apply(const Tensor& grad) = 0;
  // Gradient slots: a node of several outputs (a compiled function's) takes
  // one gradient per output; an edge's input_nr names the slot it feeds.
  virtual uint32_t num_inputs() const { return 1; }
  // The gradients of the inputs, given each slot's gradient (undefined where
  // none arrived; at least one is defined). One-slot nodes implement apply().
  virtual std::vector<Tensor> apply_slots(std::vector<Tensor>& grads) { return apply(grads[0]); }
  // Drops saved values after a backward without retain_graph.
  virtual void release() {}

  const std::vector<Edge>& next() const { return next_; }
  // Creation order: later nodes run first when several are ready.
  uint64_t sequence() const { return sequence_; }
  // Hooks run on slot `slot`'s incoming gradient before apply(); a defined
  // result replaces it.
  std::vector<std::function<Tensor(const Tensor&)>>& pre_hooks(uint32_t slot = 0);
  // Slots that may have hooks: [0, pre_hook_slots()).
  uint32_t pre_hook_slots() const { return static_cast<uint32_t>(pre_hooks_.size()); }

 protected:
  std::vector<Edge> next_;

 private:
  uint64_t sequence_;
  std::vector<std::vector<std::function<Tensor(const Tensor&)>>> pre_hooks_;  // by slot
};

// How autograd treats calls of an op (for an out= or in-place kernel op: of
// its functional form).
enum class Differentiable : uint8_t {
  Yes,        // a derivative rule records it
  Composite,  // no rule: its decomposition is recorded op by op
  No,         // its results are integers or bools: never require grad
  Missing,    // no rule and no decomposition: an input that requires grad is an error
};
Differentiable differentiable(const Operator& op);
// "yes", "composite", "no", "missing".
std::string_view differentiable_name(Differentiable d);

// Grad mode of the calling thread: when off, ops record nothing.
bool is_grad_enabled();
void set_grad_enabled(bool enabled);

// The gradients of `outputs` with respect to `inputs` (which must require
// grad), returned rather than added to .grad(). grad_outputs may be empty for
// 1-element outputs. An input the outputs do not depend on gets an undefined
// tensor when allow_unused, else an error. create_graph (higher-order
// gradients) is not supported yet: asking for it is an error.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool allow_unused = false, bool create_graph = false);

// For graph compilers (plexus::compile differentiates through a compiled
// function with these).
//
// Where a gradient for t goes: {its grad_fn, its output slot}, or its leaf's
// accumulator; invalid when t does not require grad.
Edge gradient_edge(const Tensor& t);
// Makes `t` output `output_nr` of `fn`: requires grad, not a leaf.
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr = 0);
// The sequence number the next node will get: nodes made from now on have
// sequence() >= it.
uint64_t next_sequence();
// Where the graph of `outputs` leaves the nodes made since `since`: the edges
// from such nodes (or from the outputs themselves) to older nodes and to
// leaves' accumulators, each once, in the order a walk from the outputs
// first meets them.
std::vector<Edge> boundary_edges(const std::vector<Tensor>& outputs, uint64_t since);
// The gradient that backward from `outputs` delivers to each of `edges`
// (undefined where none arrives). The nodes behind those edges do not run
// (no leaf's .grad changes), nor anything past them.
std::vector<Tensor> gradients_at(const std::vector<Tensor>& outputs, const std::vector<Edge>& edges,
                                 const std::vector<Tensor>& grad_outputs, bool retain_graph);

// Runs `callback` once the backward pass that is running on this thread has
// finished with every node (PyTorch's queue_callback): how a hook that started
// work during backward (DistributedDataParallel's gradient all-reduce) waits
// for it. Callbacks run in the order queued; one may queue another. Throws
// outside a backward pass.
void queue_callback(std::function<void()> callback);

// Checks the gradients of fn at `inputs` against central differences. The
// inputs that require grad are checked; they must be float64 or float32
// tensors on the cpu, all of one dtype. Fast mode (the default) compares one
// random projection u^T J v per input (one backward, two evaluations of fn);
// when one disagrees, or with fast = false, every element of the Jacobian is
// compared. Throws plexus::Error naming the input, element and both values at
// the first mismatch beyond atol + rtol * |numerical|; returns true otherwise.
struct GradcheckOptions {
  // Unset: the dtype's defaults (float64: 1e-6, 1e-5, 1e-3; float32: 1e-3,
  // 1e-3, 1e-2: its differences lose half the digits float64's do).
  std::optional<double> eps, atol, rtol;
  bool fast = true;
  uint64_t seed = 0;  // of the random projections
};
bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
               const std::vector<Tensor>& inputs, GradcheckOptions options = {});

}  // namespace autograd

// Turns grad mode off (or on) for the current thread while alive.
class NoGradGuard {
 public:
  NoGradGuard() : prev_(autograd::is_grad_enabled()) { autograd::set_grad_enabled(false); }
  ~NoGradGuard() { autograd::set_grad_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};
class EnableGradGuard {
 public:
  EnableGradGuard() : prev_(autograd::is_grad_enabled()) { autograd::set_grad_enabled(true); }
  ~EnableGradGuard() { autograd::set_grad_enabled(prev_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool prev_;
};

// The autograd state of a tensor (TensorImpl::autograd).
struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;                               // leaves: the accumulated gradient
  std::shared_ptr<autograd::Node> grad_fn;   // non-leaves: the node that made it
  uint32_t output_nr = 0;                    // non-leaves: which of grad_fn's outputs it is
  std::weak_ptr<autograd::Node> accumulator; // leaves: their AccumulateGrad node, while alive
  bool is_view = false;                      // made by a view of a tensor that requires grad
  // Leaves with hooks: keeps their accumulator (and its hooks) alive.
  std::shared_ptr<autograd::Node> keep_accumulator;
  // Leaves: run with the leaf after backward added a gradient to its grad().
  std::vector<std::function<void(const Tensor&)>> post_accumulate_hooks;
};

}  // namespace plexus
