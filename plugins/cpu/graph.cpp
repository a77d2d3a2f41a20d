// The cpu plugin's graph compiler (plugin ABI 1.1, plexus_graph_extension):
// a graph of float32 elementwise ops of one shape becomes an
// sdk::FusedChain, run as one pass over memory. The host offers it the
// chains its fusion pass groups (plexus::compile); what it does not take the
// host runs op by op.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"
#include "plexus/sdk/fused.hpp"

namespace plexus::cpu {
namespace {

// Strides of a tensor broadcast to `shape` (trailing dims aligned; size-1
// and missing dims read one element).
std::vector<int64_t> expanded_strides(const plexus_tensor& t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.size(), 0);
  size_t lead = shape.size() - static_cast<size_t>(t.ndim);
  for (int32_t d = 0; d < t.ndim; ++d)
    out[lead + static_cast<size_t>(d)] = t.sizes[d] == 1 ? 0 : t.strides[d];
  return out;
}

// Why node i cannot be part of a chain; empty when it can.
std::string unsupported(const plexus_graph& g, int32_t i) {
  const plexus_graph_node& n = g.nodes[i];
  const sdk::FusedOp* op = sdk::fused_op(n.op ? n.op : "");
  if (!op) return "not an elementwise op chains take";
  for (int k = 0; k < op->ntensors; ++k) {
    if (k >= n.num_args || n.args[k] < 0 || n.args[k] >= g.num_values) return "a tensor operand is missing";
    const plexus_graph_value& v = g.values[n.args[k]];
    bool number = v.role & PLEXUS_GRAPH_VALUE_CONSTANT;
    if (!number && v.dtype != PLEXUS_DTYPE_F32 && v.dtype != PLEXUS_DTYPE_BOOL) return "not float32";
  }
  if (op->scalar >= 0 && (op->scalar >= n.num_args || n.attrs[op->scalar].tag != PLEXUS_VALUE_SCALAR))
    return "its scalar argument is missing";
  if (n.result < 0 || n.result >= g.num_values) return "no result";
  const plexus_graph_value& r = g.values[n.result];
  if (r.dtype != PLEXUS_DTYPE_F32 && !(op->bool_result && r.dtype == PLEXUS_DTYPE_BOOL))
    return "its result is not float32";
  return {};
}

double number(const plexus_scalar& s) {
  return s.kind == PLEXUS_SCALAR_FLOAT ? s.v.f : static_cast<double>(s.v.i);
}

struct Compiled {
  std::unique_ptr<sdk::FusedChain> chain;
  std::vector<int> input_slot;   // graph input -> chain input slot (-1: unused)
  std::vector<int> output_slot;  // graph output -> chain output slot
  bool bound = false;
};

plexus_status supports(void* ud, const plexus_graph* g, uint8_t* supported) {
  auto* host = static_cast<const plexus_host_api*>(ud);
  return sdk::guard(host, [&] {
    for (int32_t i = 0; i < g->num_nodes; ++i) supported[i] = unsupported(*g, i).empty() ? 1 : 0;
  });
}

plexus_status compile(void* ud, const plexus_graph* g, void** out) {
  auto* host = static_cast<const plexus_host_api*>(ud);
  return sdk::guard(host, [&] {
    if (g->device != 0) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "the cpu has one device");
    if (g->num_nodes == 0) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "an empty graph");
    for (int32_t i = 0; i < g->num_nodes; ++i)
      if (std::string why = unsupported(*g, i); !why.empty())
        sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "node {}: {}", g->nodes[i].op, why);
    const plexus_graph_value& last = g->values[g->nodes[g->num_nodes - 1].result];
    std::vector<int64_t> shape(last.sizes, last.sizes + last.ndim);
    auto c = std::make_unique<Compiled>();
    c->chain = std::make_unique<sdk::FusedChain>(shape);
    c->input_slot.assign(static_cast<size_t>(g->num_inputs), -1);
    std::map<int32_t, int> current;  // value -> the register holding it now
    auto operand = [&](int32_t v) {
      if (auto it = current.find(v); it != current.end()) return it->second;
      const plexus_graph_value& val = g->values[v];
      int r;
      if (val.role & PLEXUS_GRAPH_VALUE_CONSTANT) {
        r = c->chain->constant(static_cast<float>(number(val.constant)));
      } else if ((val.role & PLEXUS_GRAPH_VALUE_INPUT) && val.input >= 0 && val.input < g->num_inputs) {
        c->input_slot[static_cast<size_t>(val.input)] = static_cast<int>(c->chain->inputs());
        r = c->chain->input();
      } else {
        sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "a value is read before anything makes it");
      }
      current[v] = r;
      return r;
    };
    for (int32_t i = 0; i < g->num_nodes; ++i) {
      const plexus_graph_node& n = g->nodes[i];
      const sdk::FusedOp* op = sdk::fused_op(n.op);
      int ops[3] = {-1, -1, -1};
      for (int k = 0; k < op->ntensors; ++k) ops[k] = operand(n.args[k]);
      float s = op->scalar >= 0 ? static_cast<float>(number(n.attrs[op->scalar].u.scalar)) : 0.0f;
      current[n.result] = c->chain->op(op->code, ops[0], ops[1], ops[2], s);
    }
    c->output_slot.assign(static_cast<size_t>(g->num_outputs), -1);
    for (int32_t o = 0; o < g->num_outputs; ++o)
      for (int32_t v = 0; v < g->num_values; ++v)
        if ((g->values[v].role & PLEXUS_GRAPH_VALUE_OUTPUT) && g->values[v].output == o) {
          auto it = current.find(v);
          if (it == current.end()) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "an output no node makes");
          c->output_slot[static_cast<size_t>(o)] = static_cast<int>(c->chain->outputs());
          c->chain->output(it->second);
        }
    *out = c.release();
  });
}

plexus_status run(void* ud, void* compiled, const plexus_tensor* inputs,
                  const plexus_tensor* outputs, void*) {
  auto* host = static_cast<const plexus_host_api*>(ud);
  return sdk::guard(host, [&] {
    auto& c = *static_cast<Compiled*>(compiled);
    const std::vector<int64_t>& shape = c.chain->shape();
    auto data = [](const plexus_tensor& t) {
      return static_cast<void*>(static_cast<char*>(t.storage) +
                                t.offset * static_cast<int64_t>(sdk::dtype_size(t.dtype)));
    };
    // The first run binds each slot's layout; later runs only move it (the
    // host binds tensors of the same layout every run).
    auto bind = [&](const plexus_tensor& t, int slot, bool input) {
      if (slot < 0) return;
      const size_t k = static_cast<size_t>(slot);
      if (c.bound) {
        input ? c.chain->rebind_input(k, data(t)) : c.chain->rebind_output(k, data(t));
        return;
      }
      sdk::FusedView v{data(t), expanded_strides(t, shape), t.dtype == PLEXUS_DTYPE_BOOL};
      input ? c.chain->bind_input(k, std::move(v)) : c.chain->bind_output(k, std::move(v));
    };
    for (size_t i = 0; i < c.input_slot.size(); ++i) bind(inputs[i], c.input_slot[i], true);
    for (size_t o = 0; o < c.output_slot.size(); ++o) bind(outputs[o], c.output_slot[o], false);
    c.bound = true;
    c.chain->run(&sdk::fused_exec);
  });
}

void release(void*, void* compiled) { delete static_cast<Compiled*>(compiled); }

}  // namespace

const plexus_extension* graph_extension(const plexus_host_api* host) {
  static plexus_graph_extension ext = [] {
    plexus_graph_extension e{};
    e.header.struct_size = sizeof(plexus_graph_extension);
    e.header.type = PLEXUS_EXTENSION_GRAPH;
    e.supports = supports;
    e.compile = compile;
    e.run = run;
    e.release = release;
    return e;
  }();
  ext.user_data = const_cast<plexus_host_api*>(host);
  return &ext.header;
}

}  // namespace plexus::cpu
