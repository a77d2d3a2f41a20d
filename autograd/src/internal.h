// What the autograd sources share: gradient edges of tensors, the leaf
// accumulator, the lazily installed dispatch layer, and sum_to.
#pragma once

#include <memory>

#include "plexus/autograd.h"
#include "plexus/tensor.h"

namespace plexus::autograd {

// The tensor's autograd state, created when missing.
AutogradMeta& meta_of(const Tensor& t);
// Null when the tensor has no autograd state.
inline AutogradMeta* meta_if(const Tensor& t) {
  return t.defined() ? t.impl()->autograd.get() : nullptr;
}
inline bool requires_grad(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return m && m->requires_grad;
}

// Installs the autograd dispatch layer and the view hook (once). Until a
// tensor first requires grad, no op pays for autograd.
void install();

// True while a recorded op runs below the autograd layer on this thread:
// views taken there need no history of their own.
bool running_below();
class BelowGuard {
 public:
  BelowGuard();
  ~BelowGuard();
  BelowGuard(const BelowGuard&) = delete;
  BelowGuard& operator=(const BelowGuard&) = delete;

 private:
  bool prev_;
};

// The view hook of core views (plexus::detail::g_view_hook): records a view of
// a tensor that requires grad (views.cpp).
void view_hook(const Tensor& base, const Tensor& view, const char* name);

// Throws for create_graph = true: higher-order gradients are not supported yet.
void refuse_create_graph(bool create_graph, const char* caller);

// Tensor::backward for several outputs at once (engine.cpp).
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grads,
              bool retain_graph);

// Sums g over the dims that broadcasting added or expanded, to `sizes`.
Tensor sum_to(const Tensor& g, IntArrayRef sizes);

// The metadata of an input a gradient must match.
struct InputInfo {
  Shape sizes;
  DType dtype;
  Device device;
  static InputInfo of(const Tensor& t) {
    return {Shape(t.sizes().begin(), t.sizes().end()), t.dtype(), t.device()};
  }
};
// Reduces, converts and moves g to match `info` (broadcast inputs, mixed
// dtypes, inputs on other devices); throws when it cannot.
Tensor conform(const Tensor& g, const InputInfo& info, const Node& node);

}  // namespace plexus::autograd
