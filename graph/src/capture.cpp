// The Trace dispatch layer: records each op that reaches it (outermost calls
// only: what an op runs inside is its kernel's business) into a Graph, with a
// value for every tensor and a root for every piece of memory.
#include "capture.h"

#include <fmt/format.h>

#include <mutex>

#include "plexus/dispatcher.h"
#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/random.h"

namespace plexus::graph {
namespace {

thread_local Capture* t_current = nullptr;

Tensor trace_layer(void*, const Operator& op, DispatchKeys keys, std::span<const Value> args,
                   Layer) {
  if (Capture* c = Capture::current()) return c->record_call(op, keys, args);
  return Dispatcher::get().redispatch(op, keys, args);
}

void host_read_hook(const Tensor& t, const char* what) {
  if (Capture* c = Capture::current()) c->on_host_read(t, what);
}

void grad_set_hook(const Tensor& leaf, const Tensor& grad) {
  if (Capture* c = Capture::current()) c->on_grad_set(leaf, grad);
}

void generator_advance_hook(Generator& gen, uint64_t first, uint64_t n) {
  if (Capture* c = Capture::current()) c->on_generator_advance(gen, first, n);
}

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dispatcher::get().set_layer_kernel(Layer::Trace, trace_layer, nullptr);
    plexus::detail::g_host_read_hook = host_read_hook;
    plexus::detail::g_grad_set_hook = grad_set_hook;
    plexus::detail::g_generator_advance_hook = generator_advance_hook;
  });
}

// Runs the rest of the call below the Trace layer, with nested ops unrecorded.
struct DepthScope {
  int& depth;
  explicit DepthScope(int& d) : depth(d) { ++depth; }
  ~DepthScope() { --depth; }
};

}  // namespace

Capture* Capture::current() { return t_current; }

Capture::Capture(std::span<const Tensor> inputs, const CompileOptions& options)
    : start_serial_(StorageImpl::next_serial()),
      start_sequence_(autograd::next_sequence()),
      num_inputs_(static_cast<int>(inputs.size())),
      prev_(t_current) {
  install();
  for (const auto& [name, t] : options.names)
    if (t.defined()) names_.emplace(t.storage().get(), name);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      mark_broken(fmt::format("input {} is an undefined tensor", i));
      continue;
    }
    if (auto it = root_by_storage_.find(t.storage().get()); it != root_by_storage_.end()) {
      mark_broken(fmt::format("inputs {} and {} share memory", g_.roots[it->second].index, i));
      continue;
    }
    Root r{RootKind::Input, static_cast<int>(i), t.nbytes(), t.device(), {}, {}};
    r.base_offset = t.storage_offset();
    add_root(std::move(r), t, NodeKind::Placeholder, fmt::format("input_{}", i));
  }
  for (const Tensor& t : inputs) input_edges_.push_back(autograd::gradient_edge(t));
  t_current = this;
  thread_layers_saved_ = std::make_unique<LayerGuard>(Layer::Trace, LayerGuard::Mode::Include);
}

Capture::~Capture() {
  thread_layers_saved_.reset();
  t_current = prev_;
}

void Capture::mark_broken(std::string why) {
  if (broken_.empty()) broken_ = std::move(why);
}

int Capture::add_node(NodeKind kind, std::string base, int value) {
  int& count = name_counts_[base];
  Node n;
  n.kind = kind;
  n.name = count == 0 ? base : fmt::format("{}_{}", base, count);
  ++count;
  n.value = value;
  g_.nodes.push_back(std::move(n));
  int index = static_cast<int>(g_.nodes.size()) - 1;
  if (value >= 0 && g_.value_node[value] < 0) g_.value_node[value] = index;
  return index;
}

int Capture::add_value(int root, const Tensor& t) {
  const int64_t offset = t.storage_offset() - g_.roots[static_cast<size_t>(root)].base_offset;
  auto key = std::make_tuple(root, t.dtype(), Shape(t.sizes().begin(), t.sizes().end()),
                             Shape(t.strides().begin(), t.strides().end()), offset);
  if (auto it = by_view_.find(key); it != by_view_.end()) return it->second;
  ValueInfo v{root, t.dtype(), std::get<2>(key), std::get<3>(key), offset,
              t.impl()->wrapped_number};
  g_.values.push_back(std::move(v));
  g_.value_node.push_back(-1);
  int id = static_cast<int>(g_.values.size()) - 1;
  by_view_.emplace(std::move(key), id);
  return id;
}

int Capture::add_root(Root r, const Tensor& t, NodeKind kind, std::string base) {
  g_.roots.push_back(std::move(r));
  int root = static_cast<int>(g_.roots.size()) - 1;
  root_by_storage_.emplace(t.storage().get(), root);
  int v = add_value(root, t);
  g_.roots[static_cast<size_t>(root)].value = v;
  by_impl_.emplace(t.impl(), v);
  keep_.push_back(t);
  if (kind != NodeKind::Call) add_node(kind, std::move(base), v);
  return v;
}

int Capture::value_of(const Tensor& t, Use use) {
  if (auto it = by_impl_.find(t.impl()); it != by_impl_.end()) return it->second;
  const StorageImpl* s = t.storage().get();
  if (auto it = root_by_storage_.find(s); it != root_by_storage_.end()) {
    size_t before = g_.values.size();
    int v = add_value(it->second, t);
    if (g_.values.size() != before) {
      int n = add_node(NodeKind::View, "view", v);
      Arg a;
      a.kind = Arg::Kind::Value;
      a.value = g_.roots[static_cast<size_t>(it->second)].value;
      g_.nodes[static_cast<size_t>(n)].args.push_back(std::move(a));
    }
    by_impl_.emplace(t.impl(), v);
    keep_.push_back(t);
    return v;
  }
  Root r{RootKind::External, -1, s->nbytes(), s->device(), {}, {}};
  if (t.impl()->wrapped_number) {
    r.kind = RootKind::Constant;
    r.held = t;
    return add_root(std::move(r), t, NodeKind::Constant, "const");
  }
  if (s->serial() < start_serial_) {
    r.held = t;
    auto name = names_.find(s);
    r.name = name != names_.end() ? name->second : "";
    std::string base = r.name.empty() ? "tensor" : r.name;
    for (char& c : base)
      if (c == '.') c = '_';
    return add_root(std::move(r), t, NodeKind::GetAttr, base);
  }
  if (use == Use::Written) {
    r.kind = RootKind::Empty;
    return add_root(std::move(r), t, NodeKind::Empty, "empty");
  }
  // Made during the call and read before any op wrote it: host data.
  r.kind = RootKind::Constant;
  r.held = t;
  return add_root(std::move(r), t, NodeKind::Constant, "const");
}

Arg Capture::arg_of(const Value& v, Use use) {
  Arg a;
  switch (v.tag()) {
    case Value::Tag::None: break;
    case Value::Tag::Tensor:
      a.kind = Arg::Kind::Value;
      a.value = value_of(v.to_tensor(), use);
      break;
    case Value::Tag::TensorList:
      a.kind = Arg::Kind::ValueList;
      for (const Tensor& t : v.to_tensor_list()) a.values.push_back(value_of(t, use));
      break;
    case Value::Tag::Scalar:
      a.kind = Arg::Kind::Scalar;
      a.scalar = v.to_scalar();
      break;
    case Value::Tag::Int:
      a.kind = Arg::Kind::Int;
      a.i = v.to_int();
      break;
    case Value::Tag::IntList: {
      a.kind = Arg::Kind::IntList;
      IntArrayRef l = v.to_int_list();
      a.ints.assign(l.begin(), l.end());
      break;
    }
    case Value::Tag::Double:
      a.kind = Arg::Kind::Double;
      a.d = v.to_double();
      break;
    case Value::Tag::Bool:
      a.kind = Arg::Kind::Bool;
      a.b = v.to_bool();
      break;
    case Value::Tag::String:
      a.kind = Arg::Kind::String;
      a.str = std::string(v.to_string());
      break;
    case Value::Tag::DType:
      a.kind = Arg::Kind::DType;
      a.dtype = v.to_dtype();
      break;
    case Value::Tag::Device:
      a.kind = Arg::Kind::Device;
      a.device = v.to_device();
      break;
  }
  return a;
}

Tensor Capture::record_call(const Operator& op, DispatchKeys keys, std::span<const Value> args) {
  Dispatcher& d = Dispatcher::get();
  if (depth_ > 0 || !broken_.empty()) return d.redispatch(op, keys, args);
  Node n;
  n.kind = NodeKind::Call;
  n.op = &op;
  n.device = keys.device;
  // Every argument the schema marks written (an op may write several: Note
  // [Ops that write several tensors]).
  const auto& schema_args = op.schema().arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool w = schema_args[i].alias && schema_args[i].alias->is_write;
    n.args.push_back(arg_of(args[i], w ? Use::Written : Use::Read));
    // A random op's offset that a generator just handed out: kept relative to
    // the call's first draw, so that two calls agree and a replay draws anew.
    Arg& a = n.args.back();
    if (a.kind == Arg::Kind::Int && schema_args[i].name == "offset" && a.i >= 0)
      if (auto it = draws_.find(static_cast<uint64_t>(a.i)); it != draws_.end()) {
        a.generator = it->second;
        a.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) -
                                   generator_base_[static_cast<size_t>(it->second)]);
        draws_.erase(it);
      }
  }
  Tensor result;
  {
    DepthScope nested(depth_);
    result = d.redispatch(op, keys, args);
  }
  int value = -1;
  if (result.defined()) {
    if (by_impl_.contains(result.impl()) || root_by_storage_.contains(result.storage().get())) {
      value = value_of(result, Use::Read);
    } else {
      // Memory the op made: a new root, named by this node.
      Root r{RootKind::Result, static_cast<int>(g_.nodes.size()), result.storage()->nbytes(),
             result.device(), {}, {}};
      value = add_root(std::move(r), result, NodeKind::Call, "");
    }
  }
  int index = add_node(NodeKind::Call, op.schema().name, value);
  Node& node = g_.nodes[static_cast<size_t>(index)];
  node.op = n.op;
  node.device = n.device;
  node.args = std::move(n.args);
  return result;
}

void Capture::on_host_read(const Tensor& t, const char* what) {
  if (depth_ > 0 || !broken_.empty()) return;
  std::string whose = "a tensor";
  if (auto it = by_impl_.find(t.impl()); it != by_impl_.end())
    whose = g_.value_name(it->second);
  mark_broken(fmt::format("{} read {} on the host after {} ops", what, whose, g_.num_calls()));
}

void Capture::on_grad_set(const Tensor& leaf, const Tensor& grad) {
  if (depth_ > 0) return;
  grad_leaves_.push_back(leaf);
  if (!broken_.empty()) return;
  int target = value_of(leaf, Use::Read);
  int value = grad.defined() ? value_of(grad, Use::Read) : -1;
  int index = add_node(NodeKind::SetGrad, "set_grad", -1);
  Node& n = g_.nodes[static_cast<size_t>(index)];
  n.target = target;
  n.value = value;
  n.leaf = leaf;
}

void Capture::on_generator_advance(Generator& gen, uint64_t first, uint64_t n) {
  if (depth_ > 0 || !broken_.empty()) return;
  int k = 0;
  while (k < static_cast<int>(g_.generators.size()) &&
         g_.generators[static_cast<size_t>(k)].gen != &gen)
    ++k;
  if (k == static_cast<int>(g_.generators.size())) {
    g_.generators.push_back({&gen, 0});
    generator_base_.push_back(first);
  }
  if (auto it = draws_.find(first); it != draws_.end() && it->second != k) {
    mark_broken(
        "two random generators handed out the same offset before an op used it; the "
        "capture cannot tell which one the op draws from");
    return;
  }
  GeneratorUse& use = g_.generators[static_cast<size_t>(k)];
  const uint64_t base = generator_base_[static_cast<size_t>(k)];
  if (first < base) {
    mark_broken("a random generator was moved back during the call");
    return;
  }
  use.drawn = std::max(use.drawn, first + n - base);
  draws_[first] = k;
}

void Capture::differentiate(std::span<const Tensor> outputs) {
  if (!broken_.empty()) return;
  std::vector<Tensor> results;
  std::vector<int> which;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].defined() && outputs[i].requires_grad()) {
      results.push_back(outputs[i]);
      which.push_back(static_cast<int>(i));
    }
  if (results.empty()) return;
  std::vector<autograd::Edge> edges = autograd::boundary_edges(results, start_sequence_);
  if (edges.empty()) return;
  // The gradients of the results are inputs of the backward part; their
  // values do not matter for the capture.
  std::vector<Tensor> seeds;
  {
    Capture* self = t_current;
    t_current = nullptr;
    try {
      for (const Tensor& r : results) seeds.push_back(ones(r.sizes(), {r.dtype(), r.device()}));
    } catch (...) {
      t_current = self;
      throw;
    }
    t_current = self;
  }
  add_node(NodeKind::Backward, "backward", -1);
  for (size_t k = 0; k < seeds.size(); ++k) {
    Root r{RootKind::Input, num_inputs_++, seeds[k].nbytes(), seeds[k].device(), {}, {}};
    add_root(std::move(r), seeds[k], NodeKind::Placeholder, fmt::format("grad_{}", which[k]));
  }
  std::vector<Tensor> got;
  try {
    got = autograd::gradients_at(results, edges, seeds, /*retain_graph=*/true);
  } catch (const Error& e) {
    mark_broken(fmt::format("the backward of its results cannot be captured: {}", e.what()));
    return;
  }
  if (!broken_.empty()) return;
  g_.grad_results = which;
  for (size_t k = 0; k < edges.size(); ++k) {
    if (!got[k].defined()) continue;
    GradTarget t;
    for (size_t i = 0; i < input_edges_.size(); ++i)
      if (input_edges_[i].valid() && input_edges_[i].fn == edges[k].fn &&
          input_edges_[i].input_nr == edges[k].input_nr)
        t.input = static_cast<int>(i);
    if (t.input < 0) t.edge = edges[k];
    g_.grad_targets.push_back(std::move(t));
    grads_.push_back(got[k]);
  }
  g_.forward_outputs = static_cast<int>(outputs.size());
}

Graph Capture::finish(std::span<const Tensor> outputs) {
  std::vector<int> outs;
  for (const Tensor& t : outputs) {
    if (!t.defined()) {
      mark_broken("the function returned an undefined tensor");
      break;
    }
    outs.push_back(value_of(t, Use::Read));
  }
  for (const Tensor& t : grads_) outs.push_back(value_of(t, Use::Read));
  int index = add_node(NodeKind::Output, "output", -1);
  g_.nodes[static_cast<size_t>(index)].outputs = std::move(outs);
  keep_.clear();
  by_impl_.clear();
  return std::move(g_);
}

}  // namespace plexus::graph
