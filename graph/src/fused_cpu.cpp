// The host's kernel of a fused elementwise chain on cpu memory: the node's
// members become an sdk::FusedChain (the cpu plugin's graph compiler runs the
// same code), bound to the plan's tensors.
#include <algorithm>
#include <unordered_map>

#include "fused.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"

namespace plexus::graph {

const sdk::FusedOp* fused_op_info(const Operator& op) { return sdk::fused_op(op.name()); }

namespace {

// fused_exec built twice, for the x86-64 baseline and for x86-64-v3 (AVX2,
// FMA), picked when the library loads: the cpu plugin is built for
// x86-64-v3, so its kernels contract a + s * b into one fused multiply-add,
// and on such a machine the host's chains round the same way.
// Not under ThreadSanitizer: GCC instruments the clones' resolver, which the
// dynamic loader runs while it relocates libplexus, before the TSan runtime
// is initialized, and every program crashed there.
#if defined(__SANITIZE_THREAD__)
#define PLEXUS_FUSED_TARGETS
#else
#define PLEXUS_FUSED_TARGETS __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
PLEXUS_FUSED_TARGETS
void exec_instr(sdk::FusedCode code, float* d, const float* a, const float* b, const float* c,
                float s, int64_t n) {
  sdk::fused_exec(code, d, a, b, c, s, n);
}

}  // namespace

FusedKernel::FusedKernel(const Graph& g, const Node& fused, const std::vector<Tensor>& vals) {
  const ValueInfo& last = g.values[static_cast<size_t>(fused.members.back().value)];
  std::vector<int64_t> shape(last.sizes.begin(), last.sizes.end());
  chain_ = std::make_unique<sdk::FusedChain>(shape);
  auto slot = [&](int v) {
    const Tensor& t = vals[static_cast<size_t>(v)];
    Tensor e = t.expand(shape);
    return Slot{&t, std::vector<int64_t>(e.strides().begin(), e.strides().end()),
                g.values[static_cast<size_t>(v)].dtype == DType::Bool};
  };
  std::unordered_map<int, int> current;  // value -> the register holding it now
  std::vector<int> written;              // values written in place, in order
  auto operand = [&](int v) {
    if (auto it = current.find(v); it != current.end()) return it->second;
    const ValueInfo& info = g.values[static_cast<size_t>(v)];
    const Tensor& t = vals[static_cast<size_t>(v)];
    int r;
    if (info.wrapped_number) {
      double x = info.dtype == DType::F64
                     ? *static_cast<const double*>(t.data_ptr())
                     : static_cast<double>(*static_cast<const int64_t*>(t.data_ptr()));
      r = chain_->constant(static_cast<float>(x));
    } else {
      r = chain_->input();
      inputs_.push_back(slot(v));
    }
    current[v] = r;
    return r;
  };
  for (const Node& m : fused.members) {
    const sdk::FusedOp* info = fused_op_info(*m.op);
    PLEXUS_CHECK(info != nullptr, ErrorCode::Internal, "fused node {} holds {}", fused.name,
                 m.op->name());
    int ops[3] = {-1, -1, -1};
    for (int i = 0; i < info->ntensors; ++i) ops[i] = operand(m.args[static_cast<size_t>(i)].value);
    float s = info->scalar >= 0
                  ? static_cast<float>(m.args[static_cast<size_t>(info->scalar)].scalar.to_double())
                  : 0.0f;
    current[m.value] = chain_->op(info->code, ops[0], ops[1], ops[2], s);
    if (m.op->written_arg() >= 0 &&
        std::find(written.begin(), written.end(), m.value) == written.end())
      written.push_back(m.value);
  }
  for (int v : written) {
    chain_->output(current.at(v));
    outputs_.push_back(slot(v));
  }
  for (int v : fused.stores) {
    auto it = current.find(v);
    PLEXUS_CHECK(it != current.end(), ErrorCode::Internal, "fused node {} does not make value {}",
                 fused.name, v);
    chain_->output(it->second);
    outputs_.push_back(slot(v));
  }
}

FusedKernel::~FusedKernel() = default;

void FusedKernel::run() {
  // Pointers are taken each run: the plan may give a result new memory, or
  // point an input at the caller's, between replays (the layouts stay).
  if (!bound_) {
    for (size_t i = 0; i < inputs_.size(); ++i)
      chain_->bind_input(i, {inputs_[i].tensor->data_ptr(), inputs_[i].strides, inputs_[i].is_bool});
    for (size_t i = 0; i < outputs_.size(); ++i)
      chain_->bind_output(i, {outputs_[i].tensor->data_ptr(), outputs_[i].strides, outputs_[i].is_bool});
    bound_ = true;
  } else {
    for (size_t i = 0; i < inputs_.size(); ++i) chain_->rebind_input(i, inputs_[i].tensor->data_ptr());
    for (size_t i = 0; i < outputs_.size(); ++i) chain_->rebind_output(i, outputs_[i].tensor->data_ptr());
  }
  chain_->run(&exec_instr);
}

}  // namespace plexus::graph
