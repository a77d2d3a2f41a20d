// Tensor's autograd methods (declared in core/include/plexus/tensor.h).
#include "internal.h"
#include "plexus/error.h"

namespace plexus {

using autograd::meta_if;

bool Tensor::requires_grad() const {
  return autograd::requires_grad(*this);
}

const Tensor& Tensor::requires_grad_(bool on) const {
  AutogradMeta* m = meta_if(*this);
  if (m && m->grad_fn) {
    PLEXUS_CHECK(on, ErrorCode::InvalidArgument,
                 "requires_grad_(false) on {}, which an op made from tensors that require "
                 "grad; use detach() to get a tensor outside the graph",
                 str());
    return *this;
  }
  if (on) {
    PLEXUS_CHECK(is_floating(dtype()), ErrorCode::InvalidArgument,
                 "only floating tensors can require grad, got {}", str());
    autograd::install();
  }
  if (on || m) autograd::meta_of(*this).requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const {
  AutogradMeta* m = meta_if(*this);
  return m ? m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) const {
  if (g.defined()) {
    PLEXUS_CHECK(std::equal(g.sizes().begin(), g.sizes().end(), sizes().begin(), sizes().end()) &&
                     g.dtype() == dtype() && g.device() == device(),
                 ErrorCode::InvalidArgument,
                 "set_grad: the gradient {} does not match the tensor {} (shape, dtype and "
                 "device must be the same)",
                 g.str(), str());
  }
  if (g.defined() || meta_if(*this)) autograd::meta_of(*this).grad = g;
  if (detail::g_grad_set_hook) detail::g_grad_set_hook(*this, g);
}

bool Tensor::is_leaf() const {
  AutogradMeta* m = meta_if(*this);
  return !m || !m->grad_fn;
}

autograd::Node* Tensor::grad_fn() const {
  AutogradMeta* m = meta_if(*this);
  return m ? m->grad_fn.get() : nullptr;
}

Tensor Tensor::detach() const {
  return Tensor::make(storage(), dtype(), sizes(), strides(), storage_offset());
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  autograd::refuse_create_graph(create_graph, "backward");
  autograd::backward({*this}, {gradient}, retain_graph);
}

size_t Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  autograd::Edge e = autograd::gradient_edge(*this);
  PLEXUS_CHECK(e.valid(), ErrorCode::InvalidArgument,
               "register_hook on {}, which does not require grad", str());
  // A leaf's accumulator lives only while a graph refers to it: the leaf keeps it.
  AutogradMeta& m = autograd::meta_of(*this);
  if (!m.grad_fn) m.keep_accumulator = e.fn;
  e.fn->pre_hooks(e.input_nr).push_back(std::move(hook));
  return e.fn->pre_hooks(e.input_nr).size() - 1;
}

void Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  PLEXUS_CHECK(requires_grad() && is_leaf(), ErrorCode::InvalidArgument,
               "register_post_accumulate_grad_hook on {}: only leaves that require grad "
               "accumulate gradients",
               str());
  autograd::meta_of(*this).post_accumulate_hooks.push_back(std::move(hook));
}

}  // namespace plexus
