// The cpu plugin's graph compiler (plugin ABI 1.1, plexus_graph_extension):
// a graph of float32 elementwise ops of one shape becomes an
// sdk::FusedChain, run as one pass over memory. A graph may start with a
// matrix product (addmm, mm) whose result the chain reads: the product runs
// first (oneDNN's sgemm, as the matmul kernels), into the graph's output
// when the host reads it too, else into memory of the compiled graph's own,
// and the chain is its epilogue, in the same call. The host offers it the
// chains its fusion pass groups (plexus::compile); what it does not take the
// host runs op by op.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels.h"
#include "plexus/sdk/fused_graph.hpp"

namespace plexus::cpu {
namespace {

struct Compiled {
  std::unique_ptr<sdk::FusedChain> chain;
  std::vector<int> input_slot;   // graph input -> chain input slot (-1: unused)
  std::vector<int> output_slot;  // graph output -> chain output slot
  std::optional<sdk::FusedProduct> product;
  int product_slot = -1;         // the chain input slot reading the product's result
  std::vector<float> scratch;    // the product's result when no output holds it
  bool bound = false;
};

plexus_status supports(void* ud, const plexus_graph* g, uint8_t* supported) {
  auto* host = static_cast<const plexus_host_api*>(ud);
  return sdk::guard(host, [&] {
    for (int32_t i = 0; i < g->num_nodes; ++i)
      supported[i] = sdk::fused_unsupported(*g, i).empty() ? 1 : 0;
    if (g->num_nodes > 0 && sdk::fused_product_unsupported(*g).empty()) supported[0] = 1;
  });
}

plexus_status compile(void* ud, const plexus_graph* g, void** out) {
  auto* host = static_cast<const plexus_host_api*>(ud);
  return sdk::guard(host, [&] {
    if (g->device != 0) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "the cpu has one device");
    const sdk::FusedProgram p = sdk::read_fused_graph(*g, /*product=*/true);
    auto c = std::make_unique<Compiled>();
    c->chain = std::make_unique<sdk::FusedChain>(p.shape);
    c->input_slot.assign(static_cast<size_t>(g->num_inputs), -1);
    c->product = p.product;
    if (p.product && p.product->output < 0)
      c->scratch.resize(static_cast<size_t>(p.product->rows * p.product->cols));
    std::vector<int> reg(p.regs.size(), -1);  // program register -> chain register
    for (size_t k = 0; k < p.regs.size(); ++k) {
      const sdk::FusedRegister& r = p.regs[k];
      using Kind = sdk::FusedRegister::Kind;
      if (r.kind == Kind::Product) {
        c->product_slot = static_cast<int>(c->chain->inputs());
        reg[k] = c->chain->input();
      } else if (r.kind == Kind::Input) {
        c->input_slot[static_cast<size_t>(r.input)] = static_cast<int>(c->chain->inputs());
        reg[k] = c->chain->input();
      } else if (r.kind == Kind::Constant) {
        reg[k] = c->chain->constant(r.value);
      } else {
        auto at = [&](int i) { return i < 0 ? -1 : reg[static_cast<size_t>(i)]; };
        reg[k] = c->chain->op(r.code, at(r.a), at(r.b), at(r.c), r.scalar);
      }
    }
    c->output_slot.assign(static_cast<size_t>(g->num_outputs), -1);
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      // The product's own result is already there (unless an op of the
      // chain wrote it in place since: then the chain stores that).
      if (p.regs[static_cast<size_t>(p.outputs[o])].kind == sdk::FusedRegister::Kind::Product)
        continue;
      c->output_slot[o] = static_cast<int>(c->chain->outputs());
      c->chain->output(reg[static_cast<size_t>(p.outputs[o])]);
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
      sdk::FusedView v{data(t), sdk::broadcast_strides(t, shape), t.dtype == PLEXUS_DTYPE_BOOL};
      input ? c.chain->bind_input(k, std::move(v)) : c.chain->bind_output(k, std::move(v));
    };
    if (c.product) {
      const sdk::FusedProduct& fp = *c.product;
      int64_t sizes[2] = {fp.rows, fp.cols}, strides[2] = {fp.cols, 1};
      plexus_tensor scratch{};
      scratch.dtype = PLEXUS_DTYPE_F32;
      scratch.ndim = 2;
      scratch.sizes = sizes;
      scratch.strides = strides;
      scratch.storage = c.scratch.data();
      const plexus_tensor& dest = fp.output >= 0 ? outputs[fp.output] : scratch;
      fused_product(inputs[fp.mat1], inputs[fp.mat2], dest, fp.self >= 0 ? &inputs[fp.self] : nullptr,
                    fp.beta, fp.alpha);
      bind(dest, c.product_slot, true);
    }
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
