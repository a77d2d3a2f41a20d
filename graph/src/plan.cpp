// Binding a graph to memory of its own, and replaying it.
#include "plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/profiler.h"

namespace plexus::graph {
namespace {

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

}  // namespace

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

Plan::Plan(Graph g) : g_(std::move(g)) {
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
  fresh_.assign(g_.roots.size(), false);
  for (const Node& n : g_.nodes)
    if (n.kind == NodeKind::Output)
      for (int v : n.outputs) {
        int r = g_.values[static_cast<size_t>(v)].root;
        const Root& root = g_.roots[static_cast<size_t>(r)];
        if ((root.kind == RootKind::Result || root.kind == RootKind::Empty) &&
            root.nbytes >= kLarge)
          fresh_[static_cast<size_t>(r)] = true;
      }
  bound_.assign(g_.roots.size(), false);
  for (size_t r = 0; r < g_.roots.size(); ++r)
    if (g_.roots[r].kind == RootKind::Input && g_.roots[r].nbytes >= kLarge && lo[r] == 0 &&
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
    int w = n.op->written_arg();
    if (w < 0 || n.args[static_cast<size_t>(w)].kind != Arg::Kind::Value) return;
    const ValueInfo& info = g_.values[static_cast<size_t>(n.args[static_cast<size_t>(w)].value)];
    const Root& root = g_.roots[static_cast<size_t>(info.root)];
    if (root.kind == RootKind::Constant)
      fail(ErrorCode::Unsupported,
           "node {} ({}) writes into {}, a tensor made on the host during the call; make it "
           "with a factory (zeros, full) inside the function instead",
           n.name, n.op->name(), g_.value_name(root.value));
    if (root.kind == RootKind::Input) input_written_[static_cast<size_t>(info.root)] = true;
  };
  for (const Node& n : g_.nodes) {
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
      Step s;
      s.fused = std::make_unique<FusedKernel>(g_, n, vals_);
      std::vector<std::string> names;
      for (const Node& m : n.members) names.push_back(m.op->schema().name);
      s.label = fmt::format("compiled fused({})", fmt::join(names, ", "));
      steps_.push_back(std::move(s));
      continue;
    }
    check_write(n);
    const Operator& op = *n.op;
    Step s;
    s.keys.device = n.device;
    for (const Arg& a : n.args) s.args.push_back(bind_arg(a, vals_, s.lists));
    const bool own_result =
        n.value >= 0 &&
        g_.roots[static_cast<size_t>(g_.values[static_cast<size_t>(n.value)].root)].kind ==
            RootKind::Result &&
        g_.roots[static_cast<size_t>(g_.values[static_cast<size_t>(n.value)].root)].index ==
            static_cast<int>(&n - g_.nodes.data());
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
    if (s.copy_result_to < 0 && !touches_fresh(n))
      s.prepared = Dispatcher::get().prepare(*s.op, n.device, s.args);
    steps_.push_back(std::move(s));
  }
}

size_t Plan::prepared() const {
  size_t n = 0;
  for (const Step& s : steps_) n += s.prepared != nullptr;
  return n;
}

void Plan::run_step(Step& s) {
  if (s.fused) {
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
  LayerGuard no_autograd(Layer::Autograd, LayerGuard::Mode::Exclude);
  for (size_t r = 0; r < fresh_.size(); ++r) {
    if (!fresh_[r] || bound_[r]) continue;
    Storage s(new StorageImpl(g_.roots[r].device, g_.roots[r].nbytes));
    for (int v : root_values_[r]) vals_[static_cast<size_t>(v)].impl()->storage = s;
  }
  for (size_t i = 0; i < input_values_.size(); ++i) {
    const int r = g_.values[static_cast<size_t>(input_values_[i])].root;
    if (!bound_[static_cast<size_t>(r)]) {
      vals_[static_cast<size_t>(input_values_[i])].copy_(inputs[i]);
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
    for (Step& s : steps_) {
      auto t0 = std::chrono::steady_clock::now();
      run_step(s);
      if (!s.label.empty())
        profiler::record(s.label, s.device,
                         static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - t0)
                                                   .count()));
    }
  } else {
    for (Step& s : steps_) run_step(s);
  }
  for (size_t i = 0; i < input_values_.size(); ++i) {
    const Tensor& v = vals_[static_cast<size_t>(input_values_[i])];
    const size_t r = static_cast<size_t>(g_.values[static_cast<size_t>(input_values_[i])].root);
    if (input_written_[r] && !bound_[r]) inputs[i].copy_(v);
  }
  std::vector<Tensor> out;
  out.reserve(outputs_.size());
  for (int v : outputs_) {
    const Tensor& t = vals_[static_cast<size_t>(v)];
    // Fresh memory is the caller's now (a handle of its own: the plan's
    // handle moves to new memory next time); anything else is copied.
    const size_t r = static_cast<size_t>(g_.values[static_cast<size_t>(v)].root);
    out.push_back(fresh_[r] && !bound_[r]
                      ? Tensor::make(t.storage(), t.dtype(), t.sizes(), t.strides(),
                                     t.storage_offset())
                      : t.clone());
  }
  return out;
}

}  // namespace plexus::graph
