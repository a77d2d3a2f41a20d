// Binding a graph to memory of its own, and replaying it.
#include "plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

#include "passes.h"
#include "plexus/device_backend.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/log.h"
#include "plexus/profiler.h"
#include "plexus/random.h"
#include "plexus/stream.h"
#include "plugin/plugin_host.h"
#include "plugin/trampoline.h"

namespace plexus::graph {

Value bind_arg(const Arg& a, const std::vector<Tensor>& vals, std::deque<std::vector<Tensor>>& lists) {
  switch (a.kind) {
    case Arg::Kind::None: return Value();
    case Arg::Kind::Value: return Value::tensor(vals[static_cast<size_t>(a.value)]);
    case Arg::Kind::ValueList: {
      std::vector<Tensor>& l = lists.emplace_back();
      for (int v : a.values) l.push_back(vals[static_cast<size_t>(v)]);
      return Value::tensor_list(l);
    }
    case Arg::Kind::Scalar: return Value::scalar(a.scalar);
    case Arg::Kind::Int: return Value::integer(a.i);
    case Arg::Kind::IntList: return Value::int_list(a.ints);
    case Arg::Kind::Double: return Value::real(a.d);
    case Arg::Kind::Bool: return Value::boolean(a.b);
    case Arg::Kind::String: return Value::string(a.str);
    case Arg::Kind::DType: return Value::dtype(a.dtype);
    case Arg::Kind::Device: return Value::device(a.device);
  }
  return Value();
}

// A Fused node compiled by its device's plugin (ABI 1.1): the handle, and the
// plan values bound to its inputs and outputs at each run.
struct PluginGraph {
  const plexus_graph_extension* ext = nullptr;
  void* compiled = nullptr;
  std::vector<int> inputs, outputs;
  std::vector<plexus_tensor> in, out;  // rebuilt each run
  ~PluginGraph() {
    if (compiled) ext->release(ext->user_data, compiled);
  }
};

namespace {
// One past the last element a view reaches, from its offset.
int64_t extent(const ValueInfo& v) {
  int64_t last = v.offset;
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    if (v.sizes[d] == 0) return v.offset;
    last += (v.sizes[d] - 1) * v.strides[d];
  }
  return last + 1;
}
}  // namespace

Plan::Plan(Graph g, bool plugin_compilers) : g_(std::move(g)), plugin_compilers_(plugin_compilers) {
  // Memory: inputs, allocations and op results get their own; tensors made
  // before the call and constants are the captured ones.
  // An input's memory spans what its values reach, from the lowest offset.
  std::vector<int64_t> lo(g_.roots.size(), 0), hi(g_.roots.size(), 0);
  for (const ValueInfo& info : g_.values) {
    const Root& root = g_.roots[static_cast<size_t>(info.root)];
    if (root.kind != RootKind::Input) continue;
    int64_t first = info.offset, last = info.offset;
    bool empty_view = false;
    for (size_t d = 0; d < info.sizes.size(); ++d) {
      if (info.sizes[d] == 0) empty_view = true;
      last += (info.sizes[d] - 1) * info.strides[d];
    }
    if (empty_view) continue;
    size_t r = static_cast<size_t>(info.root);
    lo[r] = std::min(lo[r], first);
    hi[r] = std::max(hi[r], last + 1);
  }
  std::vector<Storage> storage(g_.roots.size());
  for (size_t r = 0; r < g_.roots.size(); ++r) {
    const Root& root = g_.roots[r];
    if (root.kind == RootKind::External || root.kind == RootKind::Constant) {
      storage[r] = root.held.storage();
    } else if (root.kind == RootKind::Input) {
      const ValueInfo& first = g_.values[static_cast<size_t>(root.value)];
      storage[r] = Storage(new StorageImpl(
          root.device, static_cast<size_t>(hi[r] - lo[r]) * itemsize(first.dtype)));
    } else {
      storage[r] = Storage(new StorageImpl(root.device, root.nbytes));
    }
  }
  vals_.reserve(g_.values.size());
  root_values_.assign(g_.roots.size(), {});
  for (size_t v = 0; v < g_.values.size(); ++v)
    root_values_[static_cast<size_t>(g_.values[v].root)].push_back(static_cast<int>(v));
  for (size_t v = 0; v < g_.values.size(); ++v) {
    const ValueInfo& info = g_.values[v];
    const Root& root = g_.roots[static_cast<size_t>(info.root)];
    if (root.held.defined() && root.value == static_cast<int>(v)) {
      vals_.push_back(root.held);  // keeps a C++ number's wrapped flag
      continue;
    }
    vals_.push_back(Tensor::make(storage[static_cast<size_t>(info.root)], info.dtype, info.sizes,
                                 info.strides, info.offset - lo[static_cast<size_t>(info.root)]));
  }
  // Large results get memory anew for every replay, handed to the caller
  // (no copy); small ones are copied out (cheaper than running their ops
  // unprepared). Large inputs are read where the caller has them (no copy in).
  constexpr size_t kLarge = 256 * 1024;
  // A differentiable graph: its forward's inputs are the placeholders before
  // the Backward node (the rest are its results' gradients), and its
  // forward's outputs the first forward_outputs.
  {
    size_t placeholders = 0;
    bool backward = false;
    for (const Node& n : g_.nodes) {
      if (n.kind == NodeKind::Backward) backward = true;
      if (n.kind == NodeKind::Placeholder && !backward) ++placeholders;
    }
    forward_inputs_ = g_.differentiable() ? placeholders : SIZE_MAX;
  }
  fresh_.assign(g_.roots.size(), false);
  fresh_phase_.assign(g_.roots.size(), 0);
  for (const Node& n : g_.nodes)
    if (n.kind == NodeKind::Output)
      for (size_t k = n.outputs.size(); k-- > 0;) {
        int r = g_.values[static_cast<size_t>(n.outputs[k])].root;
        const Root& root = g_.roots[static_cast<size_t>(r)];
        if ((root.kind == RootKind::Result || root.kind == RootKind::Empty) &&
            root.nbytes >= kLarge) {
          fresh_[static_cast<size_t>(r)] = true;
          fresh_phase_[static_cast<size_t>(r)] =
              g_.differentiable() && static_cast<int>(k) >= g_.forward_outputs ? 1 : 0;
        }
      }
  bound_.assign(g_.roots.size(), false);
  for (size_t r = 0; r < g_.roots.size(); ++r)
    if (g_.roots[r].kind == RootKind::Input && g_.roots[r].nbytes >= kLarge && lo[r] == 0 &&
        static_cast<size_t>(g_.roots[r].index) < forward_inputs_ &&  // gradients are copied in
        hi[r] <= extent(g_.values[static_cast<size_t>(g_.roots[r].value)])) {
      bound_[r] = true;
      fresh_[r] = true;  // its steps run unprepared too
    }
  auto touches_fresh = [&](const Node& n) {
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Value && fresh_[static_cast<size_t>(g_.values[static_cast<size_t>(a.value)].root)])
        return true;
      if (a.kind == Arg::Kind::ValueList)
        for (int v : a.values)
          if (fresh_[static_cast<size_t>(g_.values[static_cast<size_t>(v)].root)]) return true;
    }
    return n.value >= 0 && fresh_[static_cast<size_t>(g_.values[static_cast<size_t>(n.value)].root)];
  };
  input_written_.assign(g_.roots.size(), false);
  auto check_write = [&](const Node& n) {
    for_each_written(n, [&](int v) {
      const ValueInfo& info = g_.values[static_cast<size_t>(v)];
      const Root& root = g_.roots[static_cast<size_t>(info.root)];
      if (root.kind == RootKind::Constant)
        fail(ErrorCode::Unsupported,
             "node {} ({}) writes into {}, a tensor made on the host during the call; make it "
             "with a factory (zeros, full) inside the function instead",
             n.name, n.op->name(), g_.value_name(root.value));
      if (root.kind == RootKind::Input) input_written_[static_cast<size_t>(info.root)] = true;
    });
  };
  // One call of a catalog op as a step; `owner` is the node whose index its
  // result's root records (the op's own, or its fused node's).
  auto add_call = [&](const Node& n, int owner) {
    const Operator& op = *n.op;
    Step s;
    s.keys.device = n.device;
    for (const Arg& a : n.args) s.args.push_back(bind_arg(a, vals_, s.lists));
    const bool own_result =
        n.value >= 0 &&
        g_.roots[static_cast<size_t>(g_.values[static_cast<size_t>(n.value)].root)].kind ==
            RootKind::Result &&
        g_.roots[static_cast<size_t>(g_.values[static_cast<size_t>(n.value)].root)].index ==
            owner;
    static const Operator& copy_op = Dispatcher::get().op("copy_");
    if (own_result && op.schema().name == "to" && n.args[0].kind == Arg::Kind::Value) {
      // A conversion into memory of the plan's own: copy_ converts as it copies.
      s.op = &copy_op;
      s.args = {Value::tensor(vals_[static_cast<size_t>(n.value)]),
                Value::tensor(vals_[static_cast<size_t>(n.args[0].value)]), Value::boolean(false)};
    } else if (op.kind() == OpKind::Functional && op.kernel_op().kind() == OpKind::Out &&
               own_result) {
      // The out variant writes straight into the plan's memory.
      s.op = &op.kernel_op();
      s.args.push_back(Value::tensor(vals_[static_cast<size_t>(n.value)]));
    } else {
      s.op = &op;
      if (own_result) s.copy_result_to = n.value;
    }
    // A call on memory that is made anew each replay runs in full (what it
    // would keep from preparing refers to the old memory).
    s.label = "compiled " + s.op->name();
    s.device = n.device;
    for (size_t k = 0; k < n.args.size(); ++k)
      if (n.args[k].generator >= 0) s.offsets.push_back({k, n.args[k].generator, n.args[k].i});
    // Offsets change every replay: such calls go through the dispatcher.
    if (s.copy_result_to < 0 && s.offsets.empty() && !touches_fresh(n))
      s.prepared = Dispatcher::get().prepare(*s.op, n.device, s.args);
    steps_.push_back(std::move(s));
  };
  std::set<int> backward_reads;  // roots the backward part reads
  // A fused chain: compiled by its device's plugin; else on the cpu the
  // host's chain kernel; else op by op. A chain that starts with a matrix
  // product the plugin does not take runs the product alone, and the rest
  // as a chain of its own.
  std::function<void(const Node&, int)> add_fused = [&](const Node& n, int owner) {
    Step s;
    std::vector<std::string> names;
    for (const Node& m : n.members) names.push_back(m.op->schema().name);
    s.device = n.device;
    if ((s.plugin_graph = plugin_compile(n))) {
      s.label = fmt::format("compiled plugin fused({})", fmt::join(names, ", "));
      steps_.push_back(std::move(s));
      return;
    }
    if (is_chain_product(n.members.front())) {
      const Node& product = n.members.front();
      add_call(product, owner);
      Node rest;
      rest.kind = NodeKind::Fused;
      rest.name = n.name;
      rest.device = n.device;
      rest.members.assign(n.members.begin() + 1, n.members.end());
      rest.value = n.value;
      rest.reads = chain_reads(rest.members);
      for (int v : n.stores)
        if (v != product.value) rest.stores.push_back(v);
      if (rest.members.size() == 1) add_call(rest.members.front(), owner);
      else add_fused(rest, owner);
      return;
    }
    if (n.device.is_cpu()) {
      s.fused = std::make_unique<FusedKernel>(g_, n, vals_);
      s.label = fmt::format("compiled fused({})", fmt::join(names, ", "));
      steps_.push_back(std::move(s));
      return;
    }
    // No compiler took it off the cpu: the members run one by one.
    for (const Node& m : n.members) add_call(m, owner);
  };
  for (const Node& n : g_.nodes) {
    if (backward_step_ != SIZE_MAX)
      for_each_value(n, [&](int v) { backward_reads.insert(g_.values[static_cast<size_t>(v)].root); });
    if (n.kind == NodeKind::Backward) {
      backward_step_ = steps_.size();
      continue;
    }
    if (n.kind == NodeKind::Placeholder) input_values_.push_back(n.value);
    if (n.kind == NodeKind::Output) outputs_ = n.outputs;
    if (n.kind == NodeKind::SetGrad) {
      Step s;
      s.leaf = n.leaf;
      s.grad = n.value;
      steps_.push_back(std::move(s));
      continue;
    }
    if (n.kind != NodeKind::Call && n.kind != NodeKind::Fused) continue;
    for (const Node& m : n.kind == NodeKind::Fused ? n.members : std::vector<Node>{}) check_write(m);
    if (n.kind == NodeKind::Fused) {
      add_fused(n, static_cast<int>(&n - g_.nodes.data()));
      continue;
    }
    check_write(n);
    add_call(n, static_cast<int>(&n - g_.nodes.data()));
  }
  if (g_.differentiable()) {
    PLEXUS_CHECK(backward_step_ != SIZE_MAX && outputs_.size() >= static_cast<size_t>(g_.forward_outputs),
                 ErrorCode::Internal, "a differentiable graph without its backward part");
    forward_outputs_ = static_cast<size_t>(g_.forward_outputs);
    // The caller holds this memory between the two parts, and may change it.
    for (int r : backward_reads)
      if (bound_[static_cast<size_t>(r)] ||
          (fresh_[static_cast<size_t>(r)] && fresh_phase_[static_cast<size_t>(r)] == 0))
        shared_roots_.push_back(r);
  } else {
    backward_step_ = steps_.size();
    forward_inputs_ = input_values_.size();
    forward_outputs_ = outputs_.size();
  }
}

size_t Plan::prepared() const {
  size_t n = 0;
  for (const Step& s : steps_) n += s.prepared != nullptr;
  return n;
}

std::shared_ptr<PluginGraph> Plan::plugin_compile(const Node& fused) {
  const plexus_graph_extension* ext = plugin_compilers_ ? graph_compiler(fused.device.type) : nullptr;
  if (!ext) return nullptr;
  // The members as a plexus_graph: their values (inputs, constants, outputs,
  // internal ones), their args and non-tensor attributes.
  auto pg = std::make_shared<PluginGraph>();
  pg->ext = ext;
  std::vector<int> local(g_.values.size(), -1), global;
  auto value_of = [&](int v) {
    if (local[static_cast<size_t>(v)] < 0) {
      local[static_cast<size_t>(v)] = static_cast<int>(global.size());
      global.push_back(v);
    }
    return local[static_cast<size_t>(v)];
  };
  std::vector<std::vector<int32_t>> args(fused.members.size());
  std::vector<std::vector<plexus_value>> attrs(fused.members.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < fused.members.size(); ++i) {
    const Node& m = fused.members[i];
    names.push_back(m.op->name());
    for (const Arg& a : m.args) {
      plexus_value pv{};
      pv.tag = PLEXUS_VALUE_NONE;
      int32_t vi = -1;
      switch (a.kind) {
        case Arg::Kind::Value: vi = value_of(a.value); break;
        case Arg::Kind::Scalar:
          pv.tag = PLEXUS_VALUE_SCALAR;
          pv.u.scalar = to_abi_scalar(a.scalar);
          break;
        case Arg::Kind::Int: pv.tag = PLEXUS_VALUE_INT; pv.u.i = a.i; break;
        case Arg::Kind::Double: pv.tag = PLEXUS_VALUE_FLOAT; pv.u.f = a.d; break;
        case Arg::Kind::Bool: pv.tag = PLEXUS_VALUE_BOOL; pv.u.b = a.b; break;
        case Arg::Kind::DType: pv.tag = PLEXUS_VALUE_DTYPE; pv.u.dtype = static_cast<plexus_dtype>(a.dtype); break;
        case Arg::Kind::None: break;
        default: return nullptr;  // lists and strings: not offered
      }
      args[i].push_back(vi);
      attrs[i].push_back(pv);
    }
    value_of(m.value);
  }
  std::vector<plexus_graph_value> values(global.size());
  std::set<int> reads(fused.reads.begin(), fused.reads.end());
  std::set<int> writes(fused.stores.begin(), fused.stores.end());
  for (const Node& m : fused.members)
    if (m.op->written_arg() >= 0) writes.insert(m.value);
  for (size_t k = 0; k < global.size(); ++k) {
    const int v = global[k];
    const ValueInfo& info = g_.values[static_cast<size_t>(v)];
    plexus_graph_value& pv = values[k];
    pv.dtype = static_cast<plexus_dtype>(info.dtype);
    pv.ndim = static_cast<int32_t>(info.sizes.size());
    pv.sizes = info.sizes.data();
    pv.strides = info.strides.data();
    pv.input = pv.output = -1;
    if (info.wrapped_number) {
      pv.role = PLEXUS_GRAPH_VALUE_CONSTANT;
      pv.constant = to_abi_scalar(vals_[static_cast<size_t>(v)].item());
      continue;
    }
    if (reads.contains(v)) {
      pv.role |= PLEXUS_GRAPH_VALUE_INPUT;
      pv.input = static_cast<int32_t>(pg->inputs.size());
      pg->inputs.push_back(v);
    }
    if (writes.contains(v)) {
      pv.role |= PLEXUS_GRAPH_VALUE_OUTPUT;
      pv.output = static_cast<int32_t>(pg->outputs.size());
      pg->outputs.push_back(v);
    }
  }
  std::vector<plexus_graph_node> nodes(fused.members.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].op = names[i].c_str();
    nodes[i].num_args = static_cast<int32_t>(args[i].size());
    nodes[i].result = local[static_cast<size_t>(fused.members[i].value)];
    nodes[i].args = args[i].data();
    nodes[i].attrs = attrs[i].data();
  }
  plexus_graph graph{};
  graph.struct_size = sizeof(plexus_graph);
  graph.device = fused.device.index;
  graph.num_values = static_cast<int32_t>(values.size());
  graph.values = values.data();
  graph.num_nodes = static_cast<int32_t>(nodes.size());
  graph.nodes = nodes.data();
  graph.num_inputs = static_cast<int32_t>(pg->inputs.size());
  graph.num_outputs = static_cast<int32_t>(pg->outputs.size());
  std::vector<uint8_t> supported(nodes.size(), 0);
  if (ext->supports(ext->user_data, &graph, supported.data()) != PLEXUS_OK) {
    (void)take_plugin_error_message();
    return nullptr;
  }
  for (uint8_t ok : supported)
    if (!ok) return nullptr;
  plexus_status st = ext->compile(ext->user_data, &graph, &pg->compiled);
  if (st != PLEXUS_OK) {
    // The chain runs without the plugin's compiler (op by op, or the host's
    // fused kernel on the cpu); the rest of the graph stays compiled.
    pg->compiled = nullptr;
    Error err = plugin_error(st, std::string(device_type_name(fused.device.type)),
                             "compiling " + fused.name);
    logging::get("graph").warn("{} runs without the plugin's compiler: {}", fused.name, err.what());
    return nullptr;
  }
  return pg;
}

void Plan::run_step(Step& s) {
  if (s.plugin_graph) {
    PluginGraph& p = *s.plugin_graph;
    p.in.clear();
    p.out.clear();
    for (int v : p.inputs) p.in.push_back(to_abi_tensor(vals_[static_cast<size_t>(v)]));
    for (int v : p.outputs) p.out.push_back(to_abi_tensor(vals_[static_cast<size_t>(v)]));
    plexus_status st = p.ext->run(p.ext->user_data, p.compiled, p.in.data(), p.out.data(),
                                 detail::current_stream_handle(s.device));
    if (st != PLEXUS_OK)
      throw plugin_error(st, std::string(device_type_name(s.device.type)), s.label);
    for (int v : p.outputs) vals_[static_cast<size_t>(v)].storage()->bump_version("compiled graph");
  } else if (s.fused) {
    s.fused->run();
  } else if (!s.op) {
    s.leaf.set_grad(s.grad >= 0 ? vals_[static_cast<size_t>(s.grad)] : Tensor());
  } else if (s.prepared) {
    s.prepared->run();
  } else {
    Tensor r = Dispatcher::get().redispatch(*s.op, s.keys, s.args);
    if (s.copy_result_to >= 0) vals_[static_cast<size_t>(s.copy_result_to)].copy_(r);
  }
}

std::vector<Tensor> Plan::run(std::span<const Tensor> inputs) {
  PLEXUS_CHECK(inputs.size() == forward_inputs_, ErrorCode::InvalidArgument,
               "compiled graph: {} inputs, expected {}", inputs.size(), forward_inputs_);
  // Each replay takes the generators' next positions, as the eager call would.
  if (!g_.generators.empty()) {
    std::vector<uint64_t> base;
    for (const GeneratorUse& u : g_.generators) base.push_back(u.gen->advance(u.drawn));
    for (Step& s : steps_)
      for (const Step::Offset& o : s.offsets)
        s.args[o.arg] = Value::integer(static_cast<int64_t>(base[static_cast<size_t>(o.generator)] +
                                                            static_cast<uint64_t>(o.relative)));
  }
  forward_ran_ = false;
  std::vector<Tensor> out = run_part(inputs, 0, 0, backward_step_, 0, forward_outputs_, 0);
  shared_versions_.clear();
  for (int r : shared_roots_) {
    const Storage& st = vals_[static_cast<size_t>(root_values_[static_cast<size_t>(r)].front())].storage();
    shared_versions_.emplace_back(st, st->version());
  }
  forward_ran_ = true;
  return out;
}

std::vector<Tensor> Plan::run_backward(std::span<const Tensor> grads) {
  PLEXUS_CHECK(g_.differentiable() && forward_ran_, ErrorCode::Internal,
               "compiled graph: backward without a forward");
  PLEXUS_CHECK(grads.size() == input_values_.size() - forward_inputs_, ErrorCode::Internal,
               "compiled graph: {} gradients, expected {}", grads.size(),
               input_values_.size() - forward_inputs_);
  for (size_t k = 0; k < shared_roots_.size(); ++k) {
    const auto& [st, version] = shared_versions_[k];
    const Root& root = g_.roots[static_cast<size_t>(shared_roots_[k])];
    PLEXUS_CHECK(st->version() == version, ErrorCode::InvalidArgument,
                 "compiled function backward: {} was changed in place after the forward "
                 "(version {}, expected {}), and the backward reads it; change a copy instead",
                 root.kind == RootKind::Input ? fmt::format("input {}", root.index)
                                              : "one of its results",
                 st->version(), version);
  }
  return run_part(grads, forward_inputs_, backward_step_, steps_.size(), forward_outputs_,
                  outputs_.size(), 1);
}

std::vector<Tensor> Plan::run_part(std::span<const Tensor> inputs, size_t first, size_t begin,
                                   size_t end, size_t out_begin, size_t out_end, int phase) {
  LayerGuard no_autograd(Layer::Autograd, LayerGuard::Mode::Exclude);
  for (size_t r = 0; r < fresh_.size(); ++r) {
    if (!fresh_[r] || bound_[r] || fresh_phase_[r] != phase) continue;
    Storage s(new StorageImpl(g_.roots[r].device, g_.roots[r].nbytes));
    for (int v : root_values_[r]) vals_[static_cast<size_t>(v)].impl()->storage = s;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int value = input_values_[first + i];
    const int r = g_.values[static_cast<size_t>(value)].root;
    if (!bound_[static_cast<size_t>(r)]) {
      vals_[static_cast<size_t>(value)].copy_(inputs[i]);
      continue;
    }
    // The input's values become views of the caller's tensor.
    for (int v : root_values_[static_cast<size_t>(r)]) {
      TensorImpl* impl = vals_[static_cast<size_t>(v)].impl();
      impl->storage = inputs[i].storage();
      impl->offset = g_.values[static_cast<size_t>(v)].offset + inputs[i].storage_offset();
    }
  }
  if (profiler::enabled()) {
    for (size_t k = begin; k < end; ++k) {
      Step& s = steps_[k];
      auto t0 = std::chrono::steady_clock::now();
      run_step(s);
      if (!s.label.empty())
        profiler::record(s.label, s.device,
                         static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - t0)
                                                   .count()));
    }
  } else {
    for (size_t k = begin; k < end; ++k) run_step(steps_[k]);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int value = input_values_[first + i];
    const Tensor& v = vals_[static_cast<size_t>(value)];
    const size_t r = static_cast<size_t>(g_.values[static_cast<size_t>(value)].root);
    if (input_written_[r] && !bound_[r]) inputs[i].copy_(v);
  }
  std::vector<Tensor> out;
  out.reserve(out_end - out_begin);
  for (size_t k = out_begin; k < out_end; ++k) {
    const int v = outputs_[k];
    const Tensor& t = vals_[static_cast<size_t>(v)];
    // Fresh memory is the caller's now (a handle of its own: the plan's
    // handle moves to new memory next time); anything else is copied.
    const size_t r = static_cast<size_t>(g_.values[static_cast<size_t>(v)].root);
    out.push_back(fresh_[r] && !bound_[r] && fresh_phase_[r] == phase
                      ? Tensor::make(t.storage(), t.dtype(), t.sizes(), t.strides(),
                                     t.storage_offset())
                      : t.clone());
  }
  return out;
}

}  // namespace plexus::graph
