// Graph passes run before a graph is compiled: dead-code elimination and
// common-subexpression elimination. Purity comes from the schema: an op with
// no Tensor(a!) argument writes nothing but its own result.
#include "passes.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>

#include "plexus/dispatcher.h"

namespace plexus::graph {
namespace {

bool writes(const Node& n) { return n.op->written_arg() >= 0; }

// The root the node's op made (its result's memory), or -1.
int own_root(const Graph& g, const Node& n, int index) {
  if (n.value < 0) return -1;
  int root = g.values[static_cast<size_t>(n.value)].root;
  const Root& r = g.roots[static_cast<size_t>(root)];
  return r.kind == RootKind::Result && r.index == index ? root : -1;
}

// Removes the nodes marked dead, keeping Result roots' node indices right.
void erase_nodes(Graph& g, const std::vector<bool>& dead) {
  std::vector<int> new_index(g.nodes.size(), -1);
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (dead[i]) continue;
    new_index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  for (Root& r : g.roots)
    if (r.kind == RootKind::Result) r.index = r.index >= 0 ? new_index[static_cast<size_t>(r.index)] : -1;
  for (int& n : g.value_node)
    if (n >= 0) n = new_index[static_cast<size_t>(n)];
}

}  // namespace

int eliminate_dead_code(Graph& g) {
  std::vector<bool> dead(g.nodes.size(), false);
  std::set<int> read;  // roots something later reads
  auto mark = [&](int v) { read.insert(g.values[static_cast<size_t>(v)].root); };
  int removed = 0;
  for (size_t k = g.nodes.size(); k-- > 0;) {
    const Node& n = g.nodes[k];
    if (n.kind != NodeKind::Call) {
      if (n.kind == NodeKind::Output || n.kind == NodeKind::SetGrad) for_each_value(n, mark);
      continue;
    }
    const int own = own_root(g, n, static_cast<int>(k));
    bool live;
    if (writes(n)) {
      // Live when it writes memory the caller sees or a later node reads.
      bool any = false;
      live = false;
      for_each_written(n, [&](int v) {
        any = true;
        int root = g.values[static_cast<size_t>(v)].root;
        RootKind kind = g.roots[static_cast<size_t>(root)].kind;
        live = live || kind == RootKind::External || kind == RootKind::Input || read.contains(root);
      });
      live = live || !any;
    } else {
      // A pure op: needed only for memory of its own that someone reads.
      live = own >= 0 && read.contains(own);
    }
    if (!live) {
      dead[k] = true;
      ++removed;
      continue;
    }
    for_each_value(n, mark);
  }
  if (removed > 0) erase_nodes(g, dead);
  return removed;
}

int eliminate_common_subexpressions(Graph& g) {
  // Roots some op writes: a result that is later written is not shared.
  std::set<int> written;
  for (const Node& n : g.nodes)
    for_each_written(n, [&](int v) { written.insert(g.values[static_cast<size_t>(v)].root); });
  std::vector<int> version(g.roots.size(), 0);
  std::vector<int> remap(g.values.size());
  for (size_t v = 0; v < remap.size(); ++v) remap[v] = static_cast<int>(v);
  std::map<std::string, int> seen;  // key -> the root of the node that computed it first
  std::map<std::tuple<int, DType, Shape, Shape, int64_t>, int> by_view;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ValueInfo& i = g.values[v];
    by_view.emplace(std::make_tuple(i.root, i.dtype, i.sizes, i.strides, i.offset),
                    static_cast<int>(v));
  }
  // The value of `root` with v's view, made when missing.
  auto value_on = [&](int root, int v) {
    ValueInfo info = g.values[static_cast<size_t>(v)];
    info.root = root;
    auto key = std::make_tuple(root, info.dtype, info.sizes, info.strides, info.offset);
    if (auto it = by_view.find(key); it != by_view.end()) return it->second;
    g.values.push_back(info);
    g.value_node.push_back(g.value_node[static_cast<size_t>(v)]);
    remap.push_back(static_cast<int>(g.values.size()) - 1);
    by_view.emplace(key, static_cast<int>(g.values.size()) - 1);
    return static_cast<int>(g.values.size()) - 1;
  };
  std::vector<int> merged_into(g.roots.size(), -1);
  std::vector<bool> dead(g.nodes.size(), false);
  int removed = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    Node& n = g.nodes[k];
    auto apply = [&](int& v) {
      if (v < 0) return;
      int root = g.values[static_cast<size_t>(v)].root;
      if (merged_into[static_cast<size_t>(root)] >= 0)
        v = value_on(merged_into[static_cast<size_t>(root)], v);
    };
    for (Arg& a : n.args) {
      if (a.kind == Arg::Kind::Value) apply(a.value);
      if (a.kind == Arg::Kind::ValueList)
        for (int& v : a.values) apply(v);
    }
    for (int& v : n.outputs) apply(v);
    if (n.kind == NodeKind::SetGrad) {
      apply(n.target);
      apply(n.value);
    }
    if (n.kind == NodeKind::View) {
      int before = n.value;
      apply(n.value);
      if (n.value != before) {
        dead[k] = true;  // a view of merged memory: the kept root's view names it
        continue;
      }
    }
    if (n.kind != NodeKind::Call) continue;
    if (writes(n)) {
      for_each_written(n, [&](int v) { ++version[static_cast<size_t>(g.values[static_cast<size_t>(v)].root)]; });
      continue;
    }
    const int own = own_root(g, n, static_cast<int>(k));
    if (own < 0 || written.contains(own)) continue;
    std::string key = fmt::format("{}|{}", n.op->id(), n.device.str());
    bool keyable = true;
    for (const Arg& a : n.args) {
      switch (a.kind) {
        case Arg::Kind::Value: {
          int root = g.values[static_cast<size_t>(a.value)].root;
          key += fmt::format("|v{}@{}", a.value, version[static_cast<size_t>(root)]);
          break;
        }
        case Arg::Kind::ValueList:
          key += "|[";
          for (int v : a.values)
            key += fmt::format("{}@{},", v, version[static_cast<size_t>(g.values[static_cast<size_t>(v)].root)]);
          key += "]";
          break;
        case Arg::Kind::Scalar: key += fmt::format("|s{}:{}", dtype_name(a.scalar.dtype()), a.scalar.str()); break;
        case Arg::Kind::Int: key += fmt::format("|i{}", a.i); break;
        case Arg::Kind::IntList: key += fmt::format("|l{}", fmt::join(a.ints, ",")); break;
        case Arg::Kind::Double: key += fmt::format("|d{}", a.d); break;
        case Arg::Kind::Bool: key += fmt::format("|b{}", a.b); break;
        case Arg::Kind::String: key += fmt::format("|'{}'", a.str); break;
        case Arg::Kind::DType: key += fmt::format("|t{}", dtype_name(a.dtype)); break;
        case Arg::Kind::Device: key += fmt::format("|D{}", a.device.str()); break;
        case Arg::Kind::None: key += "|N"; break;
      }
      if (!keyable) break;
    }
    auto [it, inserted] = seen.emplace(key, own);
    if (inserted) continue;
    merged_into[static_cast<size_t>(own)] = it->second;
    dead[k] = true;
    ++removed;
  }
  if (removed > 0) erase_nodes(g, dead);
  return removed;
}

int fold_constants(Graph& g) {
  std::set<int> written;
  for (const Node& n : g.nodes)
    for_each_written(n, [&](int v) { written.insert(g.values[static_cast<size_t>(v)].root); });
  // The tensor a value of a constant root names.
  auto tensor_of = [&](int v) {
    const ValueInfo& info = g.values[static_cast<size_t>(v)];
    const Root& r = g.roots[static_cast<size_t>(info.root)];
    if (r.value == v) return r.held;
    return Tensor::make(r.held.storage(), info.dtype, info.sizes, info.strides, info.offset);
  };
  auto constant = [&](int v) {
    return g.roots[static_cast<size_t>(g.values[static_cast<size_t>(v)].root)].kind ==
           RootKind::Constant;
  };
  LayerGuard no_autograd(Layer::Autograd, LayerGuard::Mode::Exclude);
  int folded = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    Node& n = g.nodes[k];
    if (n.kind != NodeKind::Call || writes(n)) continue;
    const int own = own_root(g, n, static_cast<int>(k));
    if (own < 0 || written.contains(own) || g.roots[static_cast<size_t>(own)].value != n.value)
      continue;
    bool foldable = true, any_tensor = false;
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Value) {
        any_tensor = true;
        foldable = foldable && constant(a.value);
      }
      if (a.kind == Arg::Kind::ValueList)
        for (int v : a.values) {
          any_tensor = true;
          foldable = foldable && constant(v);
        }
      if (a.generator >= 0) foldable = false;
    }
    if (!foldable || !any_tensor) continue;
    std::vector<Tensor> vals(g.values.size());
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Value) vals[static_cast<size_t>(a.value)] = tensor_of(a.value);
      if (a.kind == Arg::Kind::ValueList)
        for (int v : a.values) vals[static_cast<size_t>(v)] = tensor_of(v);
    }
    std::vector<Value> args;
    std::deque<std::vector<Tensor>> lists;
    for (const Arg& a : n.args) args.push_back(bind_arg(a, vals, lists));
    DispatchKeys keys;
    keys.device = n.device;
    Tensor r = Dispatcher::get().redispatch(*n.op, keys, args);
    const ValueInfo& info = g.values[static_cast<size_t>(n.value)];
    // The capture's result must be what the op gives now, view for view.
    if (!r.defined() || r.dtype() != info.dtype || r.storage_offset() != info.offset ||
        !std::equal(r.sizes().begin(), r.sizes().end(), info.sizes.begin(), info.sizes.end()) ||
        !std::equal(r.strides().begin(), r.strides().end(), info.strides.begin(),
                    info.strides.end()))
      continue;
    Root& root = g.roots[static_cast<size_t>(own)];
    root.kind = RootKind::Constant;
    root.index = -1;
    root.held = r;
    root.nbytes = r.storage()->nbytes();
    n.kind = NodeKind::Constant;
    n.op = nullptr;
    n.args.clear();
    ++folded;
  }
  return folded;
}

PassStats optimize(Graph& g) {
  PassStats s;
  s.folded = fold_constants(g);
  s.cse = eliminate_common_subexpressions(g);
  s.dce = eliminate_dead_code(g);
  s.fused = fuse_elementwise(g);
  return s;
}

}  // namespace plexus::graph
