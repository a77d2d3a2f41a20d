// The backward engine: runs the graph's nodes in reverse topological order on
// the caller's thread (iterative: no recursion depth limit), adding up the
// gradients that reach each node, with grad mode off.
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "internal.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/profiler.h"

namespace plexus::autograd {
namespace {

// Runs the node on its slots' gradients; with the profiler on, its time
// (the backward ops it dispatched included) is recorded under its name as
// backward work.
std::vector<Tensor> apply_node(Node& n, std::vector<Tensor>& g) {
  if (!profiler::enabled()) return n.apply_slots(g);
  Device device;
  for (const Tensor& t : g)
    if (t.defined()) {
      device = t.device();
      break;
    }
  auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> out = n.apply_slots(g);
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start).count();
  profiler::record(n.name(), device, static_cast<uint64_t>(ns));
  return out;
}

struct Later {
  bool operator()(const Node* a, const Node* b) const { return a->sequence() < b->sequence(); }
};

// The gradient of each root: given, or 1 for a 1-element root.
Tensor root_gradient(const Tensor& root, const Tensor& given, size_t i) {
  if (!given.defined()) {
    PLEXUS_CHECK(root.numel() == 1, ErrorCode::InvalidArgument,
                 "backward: output {} has {} elements ({}); a gradient can be implied only for "
                 "1-element outputs: pass one of shape {}",
                 i, root.numel(), shape_str(root.sizes()), shape_str(root.sizes()));
    return ones(root.sizes(), {root.dtype(), root.device()});
  }
  PLEXUS_CHECK(std::equal(given.sizes().begin(), given.sizes().end(), root.sizes().begin(),
                          root.sizes().end()),
               ErrorCode::InvalidArgument,
               "backward: the gradient of output {} has shape {}, expected {}", i,
               shape_str(given.sizes()), shape_str(root.sizes()));
  PLEXUS_CHECK(given.dtype() == root.dtype(), ErrorCode::InvalidArgument,
               "backward: the gradient of output {} is {}, expected {}", i,
               dtype_name(given.dtype()), dtype_name(root.dtype()));
  PLEXUS_CHECK(given.device() == root.device(), ErrorCode::InvalidArgument,
               "backward: the gradient of output {} is on {}, expected {}", i,
               given.device().str(), root.device().str());
  return given;
}

struct Run {
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  bool retain_graph = false;
  // autograd::grad and gradients_at: the (node, slot)s whose incoming
  // gradient is captured into (*captured)[index].
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> capture;
  std::vector<Tensor>* captured = nullptr;
  // gradients_at: captured nodes are a boundary; nothing at or past them runs.
  bool stop_at_captured = false;
};

// Counts, for every node reachable from the roots, the edges that reach it
// (not past a boundary). With `parents`, also who reaches whom.
std::unordered_map<Node*, int> dependencies(const Run& r,
                                            std::unordered_map<Node*, std::vector<Node*>>* parents) {
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (const Edge& e : r.roots)
    if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (r.stop_at_captured && r.capture.contains(n)) continue;
    for (const Edge& e : n->next()) {
      if (!e.valid()) continue;
      ++deps[e.fn.get()];
      if (parents) (*parents)[e.fn.get()].push_back(n);
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
  return deps;
}

// The callbacks queued during the backward pass running on this thread.
thread_local std::vector<std::function<void()>>* t_callbacks = nullptr;

void run(Run& r) {
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* outer = t_callbacks;
  t_callbacks = &callbacks;
  struct Restore {
    std::vector<std::function<void()>>* outer;
    ~Restore() { t_callbacks = outer; }
  } restore{outer};
  NoGradGuard no_grad;  // backward ops record nothing (create_graph is not supported yet)
  profiler::BackwardScope backward_pass;  // the profiler tells these ops from the forward's
  const bool capturing = r.captured != nullptr;
  std::unordered_map<Node*, std::vector<Node*>> parents;
  std::unordered_map<Node*, int> deps = dependencies(r, capturing ? &parents : nullptr);
  // When gradients are captured, only nodes on a path to a captured one run:
  // no other leaf's .grad changes (torch.autograd.grad does the same).
  std::unordered_set<Node*> needed;
  if (capturing) {
    std::vector<Node*> stack;
    for (const auto& [n, slots] : r.capture) stack.push_back(n);
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (Node* p : parents[n])
        if (needed.insert(p).second) stack.push_back(p);
    }
  }
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::priority_queue<Node*, std::vector<Node*>, Later> ready;
  auto deliver = [&](Node* n, uint32_t slot, const Tensor& g) {
    if (!g.defined()) return;
    std::vector<Tensor>& b = buffers[n];
    if (b.empty()) b.resize(n->num_inputs());
    PLEXUS_CHECK(slot < b.size(), ErrorCode::Internal,
                 "backward: a gradient for slot {} of {}, which has {}", slot, n->name(), b.size());
    b[slot] = b[slot].defined() ? add(b[slot], g) : g;
  };
  for (size_t i = 0; i < r.roots.size(); ++i)
    deliver(r.roots[i].fn.get(), r.roots[i].input_nr, r.root_grads[i]);
  for (const Edge& e : r.roots)
    if (deps[e.fn.get()] == 0) ready.push(e.fn.get());
  std::unordered_set<Node*> queued;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    if (!queued.insert(n).second) continue;
    std::vector<Tensor> g = std::move(buffers[n]);
    buffers.erase(n);
    g.resize(n->num_inputs());
    for (uint32_t slot = 0; slot < n->pre_hook_slots() && slot < g.size(); ++slot)
      for (auto& hook : n->pre_hooks(slot)) {
        if (!g[slot].defined()) break;
        Tensor replaced = hook(g[slot]);
        if (replaced.defined()) g[slot] = replaced;
      }
    if (auto c = r.capture.find(n); c != r.capture.end()) {
      for (const auto& [slot, index] : c->second)
        if (slot < g.size()) (*r.captured)[index] = g[slot];
      if (r.stop_at_captured) continue;  // a boundary: its edges were not counted
    }
    bool any = false;
    for (const Tensor& t : g) any = any || t.defined();
    std::vector<Tensor> out;
    if (any && (!capturing || needed.contains(n))) out = apply_node(*n, g);
    if (!r.retain_graph) n->release();
    for (size_t i = 0; i < n->next().size(); ++i) {
      const Edge& e = n->next()[i];
      if (!e.valid()) continue;
      if (i < out.size()) deliver(e.fn.get(), e.input_nr, out[i]);
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }
  for (size_t i = 0; i < callbacks.size(); ++i) {
    std::function<void()> cb = std::move(callbacks[i]);  // a callback may queue more
    cb();
  }
}

Edge root_edge(const Tensor& t, size_t i) {
  PLEXUS_CHECK(t.defined(), ErrorCode::InvalidArgument, "backward: output {} is undefined", i);
  Edge e = gradient_edge(t);
  PLEXUS_CHECK(e.valid(), ErrorCode::InvalidArgument,
               "backward: output {} ({}) does not require grad and has no grad_fn: no input "
               "of the ops that made it requires grad, or it was made under NoGradGuard",
               i, t.str());
  return e;
}

// A run from `outputs`, each with its given (or implied) gradient.
Run rooted_run(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grads,
               bool retain_graph) {
  Run r;
  r.retain_graph = retain_graph;
  for (size_t i = 0; i < outputs.size(); ++i) {
    r.roots.push_back(root_edge(outputs[i], i));
    r.root_grads.push_back(root_gradient(outputs[i], i < grads.size() ? grads[i] : Tensor(), i));
  }
  return r;
}

}  // namespace

void queue_callback(std::function<void()> callback) {
  PLEXUS_CHECK(t_callbacks != nullptr, ErrorCode::InvalidArgument,
               "queue_callback outside a backward pass: call it from a hook that backward runs");
  t_callbacks->push_back(std::move(callback));
}

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grads,
              bool retain_graph) {
  Run r = rooted_run(outputs, grads, retain_graph);
  run(r);
}

void refuse_create_graph(bool create_graph, const char* caller) {
  PLEXUS_CHECK(!create_graph, ErrorCode::Unsupported,
               "{}: create_graph=true (higher-order gradients) is not supported yet: the "
               "backward pass records no graph of its own (autograd/README.md)",
               caller);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool allow_unused, bool create_graph) {
  refuse_create_graph(create_graph, "grad");
  Run r = rooted_run(outputs, grad_outputs, retain_graph);
  std::vector<Tensor> result(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    PLEXUS_CHECK(e.valid(), ErrorCode::InvalidArgument,
                 "grad: input {} ({}) does not require grad", i, inputs[i].str());
    r.capture[e.fn.get()].emplace_back(e.input_nr, i);
  }
  r.captured = &result;
  run(r);
  for (size_t i = 0; i < inputs.size(); ++i) {
    PLEXUS_CHECK(result[i].defined() || allow_unused, ErrorCode::InvalidArgument,
                 "grad: input {} ({}) is not part of the graph of the outputs; pass "
                 "allow_unused=true to get an undefined gradient instead",
                 i, inputs[i].str());
    if (result[i].defined()) result[i] = conform(result[i], InputInfo::of(inputs[i]), *r.roots[0].fn);
  }
  return result;
}

std::vector<Edge> boundary_edges(const std::vector<Tensor>& outputs, uint64_t since) {
  std::vector<Edge> found;
  std::set<std::pair<Node*, uint32_t>> found_set;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  auto visit = [&](const Edge& e) {
    if (!e.valid()) return;
    // Older nodes, and leaves' accumulators (the only nodes without edges),
    // are outside; newer nodes are walked through.
    if (e.fn->sequence() < since || e.fn->next().empty()) {
      if (found_set.emplace(e.fn.get(), e.input_nr).second) found.push_back(e);
      return;
    }
    if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  };
  for (const Tensor& t : outputs) {
    visit(gradient_edge(t));
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next()) visit(e);
    }
  }
  return found;
}

std::vector<Tensor> gradients_at(const std::vector<Tensor>& outputs, const std::vector<Edge>& edges,
                                 const std::vector<Tensor>& grad_outputs, bool retain_graph) {
  Run r = rooted_run(outputs, grad_outputs, retain_graph);
  r.stop_at_captured = true;
  std::vector<Tensor> result(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    PLEXUS_CHECK(edges[i].valid(), ErrorCode::InvalidArgument, "gradients_at: edge {} is invalid", i);
    r.capture[edges[i].fn.get()].emplace_back(edges[i].input_nr, i);
  }
  r.captured = &result;
  run(r);
  return result;
}

}  // namespace plexus::autograd
