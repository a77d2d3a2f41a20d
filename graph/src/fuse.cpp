// Elementwise fusion: chains of elementwise float32 ops of one shape on the
// cpu become one Fused node, run as one pass over memory (fused_cpu.cpp).
//
// Groups are built in program order, one open group per output shape. A
// group's ops run together where its last op was; an op between them that
// does not belong stays in place, so it must not read what the group made or
// wrote so far, nor write what the group read: such an op closes the group
// first. Inside a group every op reads and writes element i for element i,
// so memory the group writes must be read through that same view (a 0-d
// group has one element and no such limit).
#include <fmt/format.h>

#include <map>
#include <set>

#include "fused.h"
#include "passes.h"
#include "plexus/dispatcher.h"
#include "plugin/plugin_host.h"

namespace plexus::graph {
namespace {

struct Group {
  Shape shape;
  Device device;
  bool product = false;  // starts with a matrix product (its epilogue follows)
  std::vector<size_t> members;  // node indices
  std::set<int> made, written, read;  // roots
  std::map<int, int> written_view;    // root -> the value it is written through
};

// A tensor argument a fused op can read: float32 (or bool for conversions and
// masks) broadcast to `shape`, or a C++ number.
bool fusable_input(const Graph& g, int v, const Shape& shape, Device device) {
  const ValueInfo& info = g.values[static_cast<size_t>(v)];
  if (info.wrapped_number) return info.dtype == DType::F64 || info.dtype == DType::I64;
  if (info.dtype != DType::F32 && info.dtype != DType::Bool) return false;
  if (info.sizes.size() > shape.size()) return false;
  size_t lead = shape.size() - info.sizes.size();
  for (size_t d = 0; d < info.sizes.size(); ++d)
    if (info.sizes[d] != 1 && info.sizes[d] != shape[lead + d]) return false;
  return g.roots[static_cast<size_t>(info.root)].device == device;
}

// Chains run on the cpu (the host's kernel, or the cpu plugin's compiler)
// and on devices whose plugin compiles graphs (ABI 1.1).
bool fusable_device(Device d) {
  return d.is_cpu() || graph_compiler(d.type) != nullptr;
}

}  // namespace

int fuse_elementwise(Graph& g) {
  std::vector<Group> open;
  std::vector<bool> dead(g.nodes.size(), false);
  int fused_ops = 0;

  auto close = [&](size_t gi) {
    Group grp = std::move(open[gi]);
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(gi));
    if (grp.members.size() < 2) return;
    Node f;
    f.kind = NodeKind::Fused;
    f.device = g.nodes[grp.members.front()].device;
    size_t last = grp.members.back();
    f.name = fmt::format("fused_{}", fused_ops);
    for (size_t k : grp.members) {
      f.members.push_back(std::move(g.nodes[k]));
      if (k != last) dead[k] = true;
      ++fused_ops;
    }
    f.reads = chain_reads(f.members);
    f.value = f.members.back().value;
    g.nodes[last] = std::move(f);
  };

  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.kind == NodeKind::Backward) {
      // The forward and the backward part replay at different times: no
      // chain spans both.
      while (!open.empty()) close(open.size() - 1);
      continue;
    }
    if (n.kind == NodeKind::View || n.kind == NodeKind::Placeholder ||
        n.kind == NodeKind::GetAttr || n.kind == NodeKind::Constant || n.kind == NodeKind::Empty)
      continue;
    // Roots this node reads and writes.
    std::set<int> reads, writes;
    int written_value = -1;
    auto root_of = [&](int v) { return g.values[static_cast<size_t>(v)].root; };
    if (n.kind == NodeKind::Call) {
      int w = n.op->written_arg();
      for (size_t i = 0; i < n.args.size(); ++i) {
        const Arg& a = n.args[i];
        if (a.kind == Arg::Kind::Value) reads.insert(root_of(a.value));
        if (a.kind == Arg::Kind::ValueList)
          for (int v : a.values) reads.insert(root_of(v));
        if (static_cast<int>(i) == w && a.kind == Arg::Kind::Value) written_value = a.value;
      }
      for_each_written(n, [&](int v) { writes.insert(root_of(v)); });
    } else {
      for (int v : n.outputs) reads.insert(root_of(v));
      if (n.kind == NodeKind::SetGrad) {
        reads.insert(root_of(n.target));
        if (n.value >= 0) reads.insert(root_of(n.value));
      }
    }
    const sdk::FusedOp* info = n.kind == NodeKind::Call ? fused_op_info(*n.op) : nullptr;
    int target = -1;
    // A float32 matrix product on a fusable device starts a group of its own.
    bool product = false;
    if (!info && is_chain_product(n) && n.value >= 0 && fusable_device(n.device)) {
      const ValueInfo& out = g.values[static_cast<size_t>(n.value)];
      const Root& r = g.roots[static_cast<size_t>(out.root)];
      product = out.dtype == DType::F32 && out.sizes.size() == 2 &&
                r.kind == RootKind::Result && r.index == static_cast<int>(k);
      for (const Arg& a : n.args)
        if (a.kind == Arg::Kind::Value) {
          const ValueInfo& in = g.values[static_cast<size_t>(a.value)];
          product = product && in.dtype == DType::F32 && !in.wrapped_number &&
                    g.roots[static_cast<size_t>(in.root)].device == n.device;
        }
    }
    if (info && n.value >= 0 && fusable_device(n.device)) {
      const ValueInfo& out = g.values[static_cast<size_t>(n.value)];
      bool ok = (out.dtype == DType::F32 || (out.dtype == DType::Bool && info->bool_result)) &&
                out.sizes.size() <= 16;  // the fused kernel's index has 16 dims
      for (const Arg& a : n.args) {
        if (a.kind == Arg::Kind::ValueList) ok = false;
        if (a.kind == Arg::Kind::Value && !fusable_input(g, a.value, out.sizes, n.device))
          ok = false;
      }
      if (ok) {
        for (size_t gi = 0; gi < open.size(); ++gi)
          if (open[gi].shape == out.sizes && open[gi].device == n.device)
            target = static_cast<int>(gi);
        // Memory the group writes must be read and written through one view.
        if (target >= 0 && !out.sizes.empty()) {
          Group& grp = open[static_cast<size_t>(target)];
          // Memory the group makes is read through the view that made it:
          // another view of it (a transpose) is not element i for element i.
          for (const Arg& a : n.args)
            if (a.kind == Arg::Kind::Value && grp.made.contains(root_of(a.value)) &&
                g.roots[static_cast<size_t>(root_of(a.value))].value != a.value)
              ok = false;
          for (const Arg& a : n.args) {
            if (a.kind != Arg::Kind::Value) continue;
            auto it = grp.written_view.find(root_of(a.value));
            if (it != grp.written_view.end() && it->second != a.value) ok = false;
          }
          if (written_value >= 0 && grp.read.contains(root_of(written_value))) {
            for (size_t m : grp.members)
              for (const Arg& a : g.nodes[m].args)
                if (a.kind == Arg::Kind::Value && root_of(a.value) == root_of(written_value) &&
                    a.value != written_value)
                  ok = false;
          }
          if (!ok) {
            close(static_cast<size_t>(target));
            target = -1;
            ok = true;
          }
        }
        if (!ok) info = nullptr;
      } else {
        info = nullptr;
      }
      if (!ok) info = nullptr;
    }
    // Close the other groups this node conflicts with.
    for (size_t gi = open.size(); gi-- > 0;) {
      if (static_cast<int>(gi) == target) continue;
      const Group& grp = open[gi];
      bool conflict = false;
      for (int r : reads)
        if (grp.made.contains(r) || grp.written.contains(r)) conflict = true;
      for (int r : writes)
        if (grp.read.contains(r) || grp.written.contains(r) || grp.made.contains(r))
          conflict = true;
      if (conflict) {
        close(gi);
        if (target > static_cast<int>(gi)) --target;
      }
    }
    if (!info && !product) continue;
    if (target < 0) {
      open.push_back(Group{g.values[static_cast<size_t>(n.value)].sizes, n.device, product, {}, {},
                           {}, {}, {}});
      target = static_cast<int>(open.size()) - 1;
    }
    Group& grp = open[static_cast<size_t>(target)];
    grp.members.push_back(k);
    grp.read.insert(reads.begin(), reads.end());
    grp.written.insert(writes.begin(), writes.end());
    if (written_value >= 0) grp.written_view[root_of(written_value)] = written_value;
    int own = root_of(n.value);
    const Root& r = g.roots[static_cast<size_t>(own)];
    if (r.kind == RootKind::Result && r.index == static_cast<int>(k)) grp.made.insert(own);
  }
  while (!open.empty()) close(open.size() - 1);

  // What each fused node must store: values its members made that a node
  // outside it (or the function's output, or a gradient) reads.
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (dead[k] || g.nodes[k].kind != NodeKind::Fused) continue;
    std::set<int> made;
    for (const Node& m : g.nodes[k].members)
      if (m.value >= 0) {
        const Root& r = g.roots[static_cast<size_t>(g.values[static_cast<size_t>(m.value)].root)];
        if (r.kind == RootKind::Result) made.insert(g.values[static_cast<size_t>(m.value)].root);
      }
    std::set<int> stores;
    for (size_t j = 0; j < g.nodes.size(); ++j) {
      if (dead[j] || j == k) continue;
      for_each_value(g.nodes[j], [&](int v) {
        int root = g.values[static_cast<size_t>(v)].root;
        if (made.contains(root)) stores.insert(root);
      });
    }
    for (int root : stores) g.nodes[k].stores.push_back(g.roots[static_cast<size_t>(root)].value);
  }
  // Result roots made by a fused member now belong to the fused node.
  std::vector<int> new_index(g.nodes.size(), -1);
  {
    int next = 0;
    for (size_t k = 0; k < g.nodes.size(); ++k)
      if (!dead[k]) new_index[k] = next++;
  }
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (dead[k] || g.nodes[k].kind != NodeKind::Fused) continue;
    for (const Node& m : g.nodes[k].members) {
      if (m.value < 0) continue;
      Root& r = g.roots[static_cast<size_t>(g.values[static_cast<size_t>(m.value)].root)];
      if (r.kind == RootKind::Result && r.index >= 0 &&
          (static_cast<size_t>(r.index) == k || dead[static_cast<size_t>(r.index)])) {
        r.index = -2 - static_cast<int>(k);  // marked: fixed below
        g.value_node[static_cast<size_t>(m.value)] = static_cast<int>(k);
      }
    }
  }
  std::vector<Node> kept;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    if (!dead[k]) kept.push_back(std::move(g.nodes[k]));
  for (Root& r : g.roots) {
    if (r.kind != RootKind::Result) continue;
    if (r.index <= -2) r.index = new_index[static_cast<size_t>(-2 - r.index)];
    else if (r.index >= 0) r.index = new_index[static_cast<size_t>(r.index)];
  }
  for (int& n : g.value_node)
    if (n >= 0) n = new_index[static_cast<size_t>(n)];
  g.nodes = std::move(kept);
  return fused_ops;
}

}  // namespace plexus::graph
