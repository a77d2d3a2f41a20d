// Nodes, grad mode, the leaf accumulator, and tensors' autograd state.
#include <atomic>

#include "internal.h"
#include "plexus/error.h"
#include "plexus/ops.h"

namespace plexus::autograd {
namespace {

std::atomic<uint64_t> g_next_sequence{0};
thread_local bool t_grad_enabled = true;

// A leaf's gradient accumulator: adds each gradient into the leaf's .grad().
// It refers to the leaf weakly (the leaf may keep it, for hooks): a gradient
// for a leaf that is gone is dropped.
class AccumulateGrad final : public Node {
 public:
  AccumulateGrad(TensorImpl* leaf, const std::shared_ptr<AutogradMeta>& meta)
      : leaf_(leaf), meta_(meta) {}
  std::string name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(const Tensor& grad) override {
    std::shared_ptr<AutogradMeta> m = meta_.lock();
    if (!m) return {};
    Tensor leaf{boost::intrusive_ptr<TensorImpl>(leaf_)};
    Tensor g = conform(grad, InputInfo::of(leaf), *this);
    m->grad = m->grad.defined() ? add(m->grad, g) : g.detach();
    if (plexus::detail::g_grad_set_hook) plexus::detail::g_grad_set_hook(leaf, m->grad);
    for (auto& hook : m->post_accumulate_hooks) hook(leaf);
    return {};
  }

 private:
  TensorImpl* leaf_;
  std::weak_ptr<AutogradMeta> meta_;
};

}  // namespace

Node::Node() : sequence_(g_next_sequence.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() = default;

namespace {
thread_local bool t_below = false;
}  // namespace

bool running_below() {
  return t_below;
}
BelowGuard::BelowGuard() : prev_(t_below) {
  t_below = true;
}
BelowGuard::~BelowGuard() {
  t_below = prev_;
}

bool is_grad_enabled() {
  return t_grad_enabled;
}
void set_grad_enabled(bool enabled) {
  t_grad_enabled = enabled;
}

AutogradMeta& meta_of(const Tensor& t) {
  std::shared_ptr<AutogradMeta>& m = t.impl()->autograd;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m || !m->requires_grad) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  std::shared_ptr<Node> acc = m->accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl(), t.impl()->autograd);
    m->accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr) {
  AutogradMeta& m = meta_of(t);
  m.requires_grad = true;
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr;
}

uint64_t next_sequence() { return g_next_sequence.load(std::memory_order_relaxed); }

std::vector<std::function<Tensor(const Tensor&)>>& Node::pre_hooks(uint32_t slot) {
  if (pre_hooks_.size() <= slot) pre_hooks_.resize(slot + 1);
  return pre_hooks_[slot];
}

Tensor sum_to(const Tensor& g, IntArrayRef sizes) {
  if (std::equal(g.sizes().begin(), g.sizes().end(), sizes.begin(), sizes.end())) return g;
  int64_t lead = g.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 1 && g.size(lead + static_cast<int64_t>(i)) != 1)
      dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return r.reshape(sizes);
}

Tensor conform(const Tensor& g, const InputInfo& info, const Node& node) {
  Tensor r = g;
  if (!std::equal(r.sizes().begin(), r.sizes().end(), info.sizes.begin(), info.sizes.end())) {
    PLEXUS_CHECK(r.dim() >= static_cast<int64_t>(info.sizes.size()), ErrorCode::Internal,
                 "{} returned a gradient of shape {} for an input of shape {}", node.name(),
                 shape_str(r.sizes()), shape_str(info.sizes));
    r = sum_to(r, info.sizes);
  }
  if (r.dtype() != info.dtype) r = r.to(info.dtype);
  if (r.device() != info.device) r = r.to(info.device);
  return r;
}

}  // namespace plexus::autograd
