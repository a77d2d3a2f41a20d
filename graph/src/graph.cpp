// The graph's printer (torch.fx's tabular form) and the comparison of two
// captures.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "plexus/dispatcher.h"
#include "plexus/graph.h"

namespace plexus::graph {

bool Arg::operator==(const Arg& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::None: return true;
    case Kind::Value: return value == o.value;
    case Kind::ValueList: return values == o.values;
    case Kind::Scalar:
      return scalar.dtype() == o.scalar.dtype() && scalar.str() == o.scalar.str();
    case Kind::Int:
      return i == o.i && generator == o.generator;
    case Kind::IntList: return ints == o.ints;
    case Kind::Double: return d == o.d || (d != d && o.d != o.d);
    case Kind::Bool: return b == o.b;
    case Kind::String: return str == o.str;
    case Kind::DType: return dtype == o.dtype;
    case Kind::Device: return device == o.device;
  }
  return false;
}

std::string_view node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::GetAttr: return "get_attr";
    case NodeKind::Constant: return "constant";
    case NodeKind::Empty: return "empty";
    case NodeKind::View: return "view";
    case NodeKind::Call: return "call_function";
    case NodeKind::SetGrad: return "set_grad";
    case NodeKind::Output: return "output";
    case NodeKind::Fused: return "call_fused";
    case NodeKind::Backward: return "backward";
  }
  return "?";
}

size_t Graph::num_calls() const {
  size_t n = 0;
  for (const Node& node : nodes)
    n += node.kind == NodeKind::Call ? 1 : node.kind == NodeKind::Fused ? node.members.size() : 0;
  return n;
}

size_t Graph::num_launches() const {
  return static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(), [](const Node& n) {
    return n.kind == NodeKind::Call || n.kind == NodeKind::Fused;
  }));
}

namespace {
// The number a wrapped C++ number holds.
std::string wrapped_literal(const Tensor& t) {
  switch (t.dtype()) {
    case DType::F64: return fmt::format("{}", *static_cast<const double*>(t.data_ptr()));
    case DType::I64: return fmt::format("{}", *static_cast<const int64_t*>(t.data_ptr()));
    case DType::Bool: return *static_cast<const bool*>(t.data_ptr()) ? "True" : "False";
    default: return t.str();
  }
}
}  // namespace

std::string Graph::value_name(int v) const {
  if (v < 0) return "None";
  const ValueInfo& info = values[static_cast<size_t>(v)];
  const Root& r = roots[static_cast<size_t>(info.root)];
  if (info.wrapped_number && r.held.defined() && r.held.dim() == 0) return wrapped_literal(r.held);
  int n = value_node[static_cast<size_t>(v)];
  return n >= 0 ? nodes[static_cast<size_t>(n)].name : fmt::format("v{}", v);
}

namespace {
std::string arg_str(const Graph& g, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::None: return "None";
    case Arg::Kind::Value: return g.value_name(a.value);
    case Arg::Kind::ValueList: {
      std::vector<std::string> names;
      for (int v : a.values) names.push_back(g.value_name(v));
      return fmt::format("[{}]", fmt::join(names, ", "));
    }
    case Arg::Kind::Scalar: return a.scalar.str();
    case Arg::Kind::Int:
      return a.generator < 0 ? std::to_string(a.i)
                             : fmt::format("generator_{}.offset + {}", a.generator, a.i);
    case Arg::Kind::IntList: return fmt::format("[{}]", fmt::join(a.ints, ", "));
    case Arg::Kind::Double: return fmt::format("{}", a.d);
    case Arg::Kind::Bool: return a.b ? "True" : "False";
    case Arg::Kind::String: return fmt::format("'{}'", a.str);
    case Arg::Kind::DType: return std::string(dtype_name(a.dtype));
    case Arg::Kind::Device: return a.device.str();
  }
  return "?";
}

std::string value_str(const Graph& g, int v) {
  if (v < 0) return "";
  const ValueInfo& info = g.values[static_cast<size_t>(v)];
  return fmt::format("{}{}", dtype_name(info.dtype), shape_str(info.sizes));
}
}  // namespace

std::string Graph::str() const {
  struct Row {
    std::string opcode, name, target, args, kwargs, value;
  };
  std::vector<Row> rows;
  rows.push_back({"opcode", "name", "target", "args", "kwargs", "value"});
  for (const Node& n : nodes) {
    Row r{std::string(node_kind_name(n.kind)), n.name, "", "()", "{}", value_str(*this, n.value)};
    switch (n.kind) {
      case NodeKind::Placeholder:
        r.target = n.name;
        break;
      case NodeKind::GetAttr: {
        const Root& root = roots[static_cast<size_t>(values[static_cast<size_t>(n.value)].root)];
        r.target = root.name.empty() ? root.held.str() : root.name;
        break;
      }
      case NodeKind::Constant: {
        const ValueInfo& info = values[static_cast<size_t>(n.value)];
        if (info.wrapped_number) continue;  // printed inline where it is used
        r.target = "host data";
        break;
      }
      case NodeKind::Empty: {
        const Root& root = roots[static_cast<size_t>(values[static_cast<size_t>(n.value)].root)];
        r.target = "empty";
        r.args = fmt::format("({} bytes, {})", root.nbytes, root.device.str());
        break;
      }
      case NodeKind::View: {
        const ValueInfo& info = values[static_cast<size_t>(n.value)];
        r.target = "as_strided";
        r.args = fmt::format("({}, {}, {}, {})", arg_str(*this, n.args.at(0)),
                             shape_str(info.sizes), shape_str(info.strides), info.offset);
        break;
      }
      case NodeKind::Call: {
        r.target = n.op->name();
        std::vector<std::string> pos, kw;
        const auto& sargs = n.op->schema().arguments;
        for (size_t i = 0; i < n.args.size() && i < sargs.size(); ++i) {
          std::string s = arg_str(*this, n.args[i]);
          if (sargs[i].kwarg_only) kw.push_back(fmt::format("'{}': {}", sargs[i].name, s));
          else pos.push_back(s);
        }
        r.args = fmt::format("({}{})", fmt::join(pos, ", "), pos.size() == 1 ? "," : "");
        r.kwargs = fmt::format("{{{}}}", fmt::join(kw, ", "));
        break;
      }
      case NodeKind::SetGrad:
        r.target = "set_grad";
        r.args = fmt::format("({}, {})", value_name(n.target), value_name(n.value));
        r.value = "";
        break;
      case NodeKind::Fused: {
        std::vector<std::string> ops, ins, outs;
        for (const Node& m : n.members) ops.push_back(m.op->schema().name);
        r.target = fmt::format("fused({})", fmt::join(ops, ", "));
        for (int v : n.reads) ins.push_back(value_name(v));
        for (int v : n.stores) outs.push_back(value_name(v));
        r.args = fmt::format("({})", fmt::join(ins, ", "));
        r.kwargs = fmt::format("{{'stores': [{}]}}", fmt::join(outs, ", "));
        break;
      }
      case NodeKind::Backward: {
        std::vector<std::string> results;
        for (int k : grad_results) results.push_back(std::to_string(k));
        r.target = "backward";
        r.args = fmt::format("(results [{}],)", fmt::join(results, ", "));
        break;
      }
      case NodeKind::Output: {
        std::vector<std::string> names;
        for (int v : n.outputs) names.push_back(value_name(v));
        r.target = "output";
        r.args = fmt::format("([{}],)", fmt::join(names, ", "));
        break;
      }
    }
    rows.push_back(std::move(r));
  }
  size_t w[6] = {};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.opcode.size());
    w[1] = std::max(w[1], r.name.size());
    w[2] = std::max(w[2], std::min<size_t>(r.target.size(), 60));
    w[3] = std::max(w[3], std::min<size_t>(r.args.size(), 60));
    w[4] = std::max(w[4], std::min<size_t>(r.kwargs.size(), 40));
  }
  std::string out;
  auto line = [&](const Row& r) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.opcode, w[0], r.name,
                       w[1], r.target, w[2], r.args, w[3], r.kwargs, w[4], r.value);
  };
  line(rows[0]);
  out += fmt::format("{}  {}  {}  {}  {}  {}\n", std::string(w[0], '-'), std::string(w[1], '-'),
                     std::string(w[2], '-'), std::string(w[3], '-'), std::string(w[4], '-'),
                     std::string(5, '-'));
  for (size_t i = 1; i < rows.size(); ++i) line(rows[i]);
  return out;
}

namespace {
// The bytes of a tensor's elements, on the host, in row-major order.
std::vector<char> host_bytes(const Tensor& t) {
  Tensor h = t.to(Device()).contiguous();
  const char* p = static_cast<const char*>(h.data_ptr());
  return std::vector<char>(p, p + h.nbytes());
}

std::string root_kind_name(RootKind k) {
  switch (k) {
    case RootKind::Input: return "an input";
    case RootKind::External: return "a tensor made before the call";
    case RootKind::Constant: return "a constant";
    case RootKind::Empty: return "memory allocated during the call";
    case RootKind::Result: return "an op's result";
  }
  return "?";
}

// The first node that reads value v, for messages.
std::string first_use(const Graph& g, int v) {
  for (const Node& n : g.nodes)
    for (const Arg& a : n.args)
      if ((a.kind == Arg::Kind::Value && a.value == v) ||
          (a.kind == Arg::Kind::ValueList &&
           std::find(a.values.begin(), a.values.end(), v) != a.values.end()))
        return fmt::format("{} ({})", n.name, n.op ? n.op->name() : node_kind_name(n.kind));
  return "no node";
}

std::string constant_str(const Graph& g, const Root& r) {
  if (r.held.dim() == 0 && r.held.device().is_cpu()) return g.value_name(r.value);
  return r.held.str();
}
}  // namespace

std::string Graph::diff(const Graph& a, const Graph& b) {
  const size_t nodes_a = a.nodes.size(), nodes_b = b.nodes.size();
  for (size_t i = 0; i < std::min(nodes_a, nodes_b); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    std::string what = fmt::format("node {} ({})", i, x.name);
    if (x.kind != y.kind || x.op != y.op)
      return fmt::format("{} is {} in one call and {} ({}) in the next", what,
                         x.op ? x.op->name() : node_kind_name(x.kind), y.name,
                         y.op ? y.op->name() : node_kind_name(y.kind));
    if (x.device != y.device) return fmt::format("{} runs on another device", what);
    for (size_t k = 0; k < std::min(x.args.size(), y.args.size()); ++k)
      if (!(x.args[k] == y.args[k])) {
        std::string arg = x.op ? x.op->schema().arguments[k].name : std::to_string(k);
        return fmt::format("{}: argument '{}' is {} in one call and {} in the next", what, arg,
                           arg_str(a, x.args[k]), arg_str(b, y.args[k]));
      }
    if (x.args.size() != y.args.size() || x.value != y.value || x.target != y.target ||
        x.outputs != y.outputs || x.leaf.impl() != y.leaf.impl())
      return fmt::format("{} uses other values in the next call", what);
  }
  if (nodes_a != nodes_b)
    return fmt::format("one call ran {} nodes and the next {}", nodes_a, nodes_b);
  if (a.forward_outputs != b.forward_outputs || a.grad_results != b.grad_results)
    return "the results that require grad differ between the calls";
  if (a.grad_targets.size() != b.grad_targets.size())
    return fmt::format("one call's backward reaches {} tensors and the next {}",
                       a.grad_targets.size(), b.grad_targets.size());
  for (size_t k = 0; k < a.grad_targets.size(); ++k) {
    const GradTarget& x = a.grad_targets[k];
    const GradTarget& y = b.grad_targets[k];
    if (x.input != y.input || (x.input < 0 && (x.edge.fn != y.edge.fn ||
                                               x.edge.input_nr != y.edge.input_nr)))
      return fmt::format("gradient {} of the backward goes to another tensor in the next call", k);
  }
  if (a.generators.size() != b.generators.size())
    return fmt::format("one call drew from {} random generators and the next from {}",
                       a.generators.size(), b.generators.size());
  for (size_t k = 0; k < a.generators.size(); ++k) {
    if (a.generators[k].gen != b.generators[k].gen)
      return fmt::format("random generator {} is another generator in the next call", k);
    if (a.generators[k].drawn != b.generators[k].drawn)
      return fmt::format("one call drew {} random numbers from generator {} and the next {}",
                         a.generators[k].drawn, k, b.generators[k].drawn);
  }
  for (size_t v = 0; v < std::min(a.values.size(), b.values.size()); ++v) {
    const ValueInfo& x = a.values[v];
    const ValueInfo& y = b.values[v];
    if (x.root != y.root || x.dtype != y.dtype || x.sizes != y.sizes || x.strides != y.strides ||
        x.offset != y.offset)
      return fmt::format("value {} has another dtype, shape or layout in the next call",
                         a.value_name(static_cast<int>(v)));
  }
  if (a.values.size() != b.values.size() || a.roots.size() != b.roots.size())
    return "the calls use different numbers of tensors";
  for (size_t r = 0; r < a.roots.size(); ++r) {
    const Root& x = a.roots[r];
    const Root& y = b.roots[r];
    if (x.kind != y.kind || x.index != y.index || x.nbytes != y.nbytes || x.device != y.device)
      return fmt::format("memory of {} is {} in one call and {} in the next",
                         a.value_name(x.value), root_kind_name(x.kind), root_kind_name(y.kind));
    if (x.kind == RootKind::External && x.held.storage() != y.held.storage())
      return fmt::format("{} is another tensor in the next call (read by {}): a tensor made in "
                         "one call and kept for the next is read; set gradients to none "
                         "(zero_grad's default) rather than zeroing them",
                         a.value_name(x.value), first_use(b, y.value));
    if (x.kind == RootKind::Constant) {
      bool same = x.held.sizes().size() == y.held.sizes().size() &&
                  std::equal(x.held.sizes().begin(), x.held.sizes().end(),
                             y.held.sizes().begin()) &&
                  x.held.dtype() == y.held.dtype() && host_bytes(x.held) == host_bytes(y.held);
      if (!same)
        return fmt::format("constant {} (read by {}) is {} in one call and {} in the next; a "
                           "host value that changes between calls must be a 0-d tensor the "
                           "function reads",
                           a.value_name(x.value), first_use(a, x.value), constant_str(a, x),
                           constant_str(b, y));
    }
  }
  return "";
}

}  // namespace plexus::graph
