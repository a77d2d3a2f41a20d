// A graph the host offers a graph compiler (plugin ABI 1.1) read as a
// register program of sdk::FusedCode instructions: what the cpu plugin turns
// into an sdk::FusedChain and the vulkan plugin into a compute shader, and
// what a vendor's compiler can start from.
//
//   sdk::FusedProgram p = sdk::read_fused_graph(*graph);   // throws sdk::fail
//   for (const sdk::FusedRegister& r : p.regs) ...         // in order
//   for (int32_t o = 0; o < graph->num_outputs; ++o) ... p.outputs[o] ...
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"
#include "plexus/sdk/fused.hpp"

namespace plexus::sdk {

struct FusedRegister {
  // Product: the result of the graph's leading matrix product (FusedProgram::product).
  enum class Kind { Input, Constant, Op, Product } kind;
  int input = -1;        // Input: the graph input (run()'s inputs[input])
  bool is_bool = false;  // Input: a bool mask, read as 0 or 1
  float value = 0;       // Constant: the number
  FusedCode code{};      // Op: the instruction, on earlier registers a, b, c
  int a = -1, b = -1, c = -1;
  float scalar = 0;  // Op: its Scalar argument (alpha, weight, exponent, ...)
};

// A graph's leading matrix product (is_fused_product): out = beta * self +
// alpha * (mat1 @ mat2), self broadcast ("mm": no self, alpha 1). Operands
// are graph inputs; `output` is the graph output its result is stored in,
// or -1 when only the chain reads it.
struct FusedProduct {
  int self = -1, mat1 = -1, mat2 = -1;  // graph inputs
  double beta = 1, alpha = 1;
  int output = -1;
  int64_t rows = 0, cols = 0;
};

struct FusedProgram {
  std::optional<FusedProduct> product;  // a leading product; its result is a Product register
  std::vector<int64_t> shape;        // the chain's shape: its last node's result
  std::vector<FusedRegister> regs;   // each reads only registers before it
  std::vector<int> outputs;          // per graph output: the register stored there
  std::vector<bool> output_is_bool;  // per graph output: stored as a bool mask
};

inline double fused_number(const plexus_scalar& s) {
  return s.kind == PLEXUS_SCALAR_FLOAT ? s.v.f : static_cast<double>(s.v.i);
}

// Strides of a tensor bound to a chain of this shape, over the chain's dims
// (trailing dims aligned; size-1 and missing dims read one element).
inline std::vector<int64_t> broadcast_strides(const plexus_tensor& t,
                                              const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.size(), 0);
  const size_t lead = shape.size() - static_cast<size_t>(t.ndim);
  for (int32_t d = 0; d < t.ndim; ++d)
    out[lead + static_cast<size_t>(d)] = t.sizes[d] == 1 ? 0 : t.strides[d];
  return out;
}

// Why node i of g cannot be part of a chain; empty when it can.
inline std::string fused_unsupported(const plexus_graph& g, int32_t i) {
  const plexus_graph_node& n = g.nodes[i];
  const FusedOp* op = fused_op(n.op ? n.op : "");
  if (!op) return "not an elementwise op chains take";
  for (int k = 0; k < op->ntensors; ++k) {
    if (k >= n.num_args || n.args[k] < 0 || n.args[k] >= g.num_values)
      return "a tensor operand is missing";
    const plexus_graph_value& v = g.values[n.args[k]];
    bool number = v.role & PLEXUS_GRAPH_VALUE_CONSTANT;
    if (!number && v.dtype != PLEXUS_DTYPE_F32 && v.dtype != PLEXUS_DTYPE_BOOL)
      return "not float32";
  }
  if (op->scalar >= 0 &&
      (op->scalar >= n.num_args || n.attrs[op->scalar].tag != PLEXUS_VALUE_SCALAR))
    return "its scalar argument is missing";
  if (n.result < 0 || n.result >= g.num_values) return "no result";
  const plexus_graph_value& r = g.values[n.result];
  if (r.dtype != PLEXUS_DTYPE_F32 && !(op->bool_result && r.dtype == PLEXUS_DTYPE_BOOL))
    return "its result is not float32";
  return {};
}

// Why node 0 of g cannot be its leading matrix product; empty when it can.
inline std::string fused_product_unsupported(const plexus_graph& g) {
  if (g.num_nodes < 2) return "a product alone is not a chain";
  const plexus_graph_node& n = g.nodes[0];
  if (!n.op || !is_fused_product(n.op)) return "not a matrix product chains start with";
  const bool addmm = std::string_view(n.op) == "addmm";
  const int tensors = addmm ? 3 : 2;
  if (n.num_args < (addmm ? 5 : 2)) return "arguments are missing";
  for (int k = 0; k < tensors; ++k) {
    if (n.args[k] < 0 || n.args[k] >= g.num_values) return "a tensor operand is missing";
    const plexus_graph_value& v = g.values[n.args[k]];
    if (v.dtype != PLEXUS_DTYPE_F32 || !(v.role & PLEXUS_GRAPH_VALUE_INPUT) || v.input < 0)
      return "an operand is not a float32 input";
    if (k > 0 || !addmm ? v.ndim != 2 : v.ndim > 2) return "an operand has other dims";
  }
  if (addmm && (n.attrs[3].tag != PLEXUS_VALUE_SCALAR || n.attrs[4].tag != PLEXUS_VALUE_SCALAR))
    return "beta or alpha is missing";
  if (n.result < 0 || n.result >= g.num_values || g.values[n.result].ndim != 2 ||
      g.values[n.result].dtype != PLEXUS_DTYPE_F32)
    return "its result is not a float32 matrix";
  return {};
}

// The program of a graph whose every node is supported; fails with
// INVALID_ARGUMENT or UNSUPPORTED (naming the node) otherwise. Inputs become
// registers where they are first read, in that order. With `product`, node 0
// may be a leading matrix product (fused_product_unsupported).
inline FusedProgram read_fused_graph(const plexus_graph& g, bool product = false) {
  if (g.num_nodes == 0) fail(PLEXUS_ERROR_INVALID_ARGUMENT, "an empty graph");
  const int32_t first = product && fused_product_unsupported(g).empty() ? 1 : 0;
  for (int32_t i = first; i < g.num_nodes; ++i)
    if (std::string why = fused_unsupported(g, i); !why.empty())
      fail(PLEXUS_ERROR_UNSUPPORTED, "node {}: {}", g.nodes[i].op, why);
  FusedProgram p;
  const plexus_graph_value& last = g.values[g.nodes[g.num_nodes - 1].result];
  p.shape.assign(last.sizes, last.sizes + last.ndim);
  std::map<int32_t, int> current;  // value -> the register holding it now
  auto operand = [&](int32_t v) {
    if (auto it = current.find(v); it != current.end()) return it->second;
    const plexus_graph_value& val = g.values[v];
    FusedRegister r{};
    if (val.role & PLEXUS_GRAPH_VALUE_CONSTANT) {
      r.kind = FusedRegister::Kind::Constant;
      r.value = static_cast<float>(fused_number(val.constant));
    } else if ((val.role & PLEXUS_GRAPH_VALUE_INPUT) && val.input >= 0 &&
               val.input < g.num_inputs) {
      r.kind = FusedRegister::Kind::Input;
      r.input = val.input;
      r.is_bool = val.dtype == PLEXUS_DTYPE_BOOL;
    } else {
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, "a value is read before anything makes it");
    }
    p.regs.push_back(r);
    return current[v] = static_cast<int>(p.regs.size()) - 1;
  };
  if (first == 1) {
    const plexus_graph_node& n = g.nodes[0];
    const bool addmm = std::string_view(n.op) == "addmm";
    FusedProduct fp;
    fp.self = addmm ? g.values[n.args[0]].input : -1;
    fp.mat1 = g.values[n.args[addmm ? 1 : 0]].input;
    fp.mat2 = g.values[n.args[addmm ? 2 : 1]].input;
    if (addmm) {
      fp.beta = fused_number(n.attrs[3].u.scalar);
      fp.alpha = fused_number(n.attrs[4].u.scalar);
    }
    const plexus_graph_value& r = g.values[n.result];
    fp.output = (r.role & PLEXUS_GRAPH_VALUE_OUTPUT) ? r.output : -1;
    fp.rows = r.sizes[0];
    fp.cols = r.sizes[1];
    p.product = fp;
    FusedRegister reg{};
    reg.kind = FusedRegister::Kind::Product;
    p.regs.push_back(reg);
    current[n.result] = static_cast<int>(p.regs.size()) - 1;
  }
  for (int32_t i = first; i < g.num_nodes; ++i) {
    const plexus_graph_node& n = g.nodes[i];
    const FusedOp* op = fused_op(n.op);
    FusedRegister r{};
    r.kind = FusedRegister::Kind::Op;
    r.code = op->code;
    int* operands[3] = {&r.a, &r.b, &r.c};
    for (int k = 0; k < op->ntensors; ++k) *operands[k] = operand(n.args[k]);
    if (op->scalar >= 0) r.scalar = static_cast<float>(fused_number(n.attrs[op->scalar].u.scalar));
    p.regs.push_back(r);
    current[n.result] = static_cast<int>(p.regs.size()) - 1;
  }
  p.outputs.assign(static_cast<size_t>(g.num_outputs), -1);
  p.output_is_bool.assign(static_cast<size_t>(g.num_outputs), false);
  for (int32_t v = 0; v < g.num_values; ++v) {
    const plexus_graph_value& val = g.values[v];
    if (!(val.role & PLEXUS_GRAPH_VALUE_OUTPUT) || val.output < 0 || val.output >= g.num_outputs)
      continue;
    auto it = current.find(v);
    if (it == current.end()) fail(PLEXUS_ERROR_INVALID_ARGUMENT, "an output no node makes");
    p.outputs[static_cast<size_t>(val.output)] = it->second;
    p.output_is_bool[static_cast<size_t>(val.output)] = val.dtype == PLEXUS_DTYPE_BOOL;
  }
  for (int o : p.outputs)
    if (o < 0) fail(PLEXUS_ERROR_INVALID_ARGUMENT, "an output no value names");
  return p;
}

}  // namespace plexus::sdk
