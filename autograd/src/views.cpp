// Views (core's view, reshape, permute, transpose, slice, select, expand,
// squeeze, unsqueeze, flatten, as_strided) are metadata, not dispatched ops:
// core calls view_hook for each view of a tensor with autograd state.
//
// One backward serves every view: the view's gradient is written into zeros
// laid out like the base's storage range, at the view's own places, and read
// back through the base's strides. Broadcast (stride-0) dims of the view are
// summed first. A base whose own elements share memory (an expanded tensor)
// cannot be told apart that way: a view of one is recorded against the
// tensor that base was itself a view of (its storage holds each element once).
#include <algorithm>

#include "call/overlap.h"
#include "internal.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::autograd {
namespace {

struct Geometry {
  Shape sizes, strides;
  int64_t offset;
  static Geometry of(const Tensor& t) {
    return {Shape(t.sizes().begin(), t.sizes().end()),
            Shape(t.strides().begin(), t.strides().end()), t.storage_offset()};
  }
  // The element span [offset, end) the view can touch; 0 wide when empty.
  int64_t end() const {
    int64_t last = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) return offset;
      last += (sizes[d] - 1) * strides[d];
    }
    return last + 1;
  }
};

// True when two elements of the geometry share memory.
bool overlaps(const Geometry& g) {
  return has_internal_overlap(g.sizes, g.strides);
}

class ViewNode final : public Node {
 public:
  ViewNode(const char* name, Geometry base, Edge base_edge, const Tensor& view)
      : name_(name), base_(std::move(base)), view_(Geometry::of(view)) {
    next_.push_back(std::move(base_edge));
  }
  std::string name() const override { return name_; }
  const Geometry& base() const { return base_; }

  std::vector<Tensor> apply(const Tensor& grad) override {
    // Broadcast dims of the view: their gradients add up in one element.
    Tensor g = grad;
    Geometry v = view_;
    for (size_t d = 0; d < v.sizes.size(); ++d)
      if (v.strides[d] == 0 && v.sizes[d] > 1) {
        g = sum(g, std::vector<int64_t>{static_cast<int64_t>(d)}, true);
        v.sizes[d] = 1;
      }
    PLEXUS_CHECK(!overlaps(v), ErrorCode::Unsupported,
                 "{}: the view's elements share memory in a way backward cannot split",
                 name_);
    int64_t lo = std::min(base_.offset, v.offset);
    int64_t hi = std::max(base_.end(), v.end());
    // A view that covers every element of the range (transpose, permute,
    // reshape of a dense base) overwrites the whole buffer: no zeros needed.
    const bool covers = g.numel() == hi - lo;
    Tensor buffer = covers ? empty({hi - lo}, {grad.dtype(), grad.device()})
                           : zeros({std::max<int64_t>(hi - lo, 0)}, {grad.dtype(), grad.device()});
    if (g.numel() > 0) buffer.as_strided(v.sizes, v.strides, v.offset - lo).copy_(g);
    return {buffer.as_strided(base_.sizes, base_.strides, base_.offset - lo)};
  }

 private:
  std::string name_;
  Geometry base_, view_;
};

}  // namespace

void view_hook(const Tensor& base, const Tensor& view, const char* name) {
  if (!is_grad_enabled() || running_below() || !requires_grad(base)) return;
  Geometry g = Geometry::of(base);
  Edge edge = gradient_edge(base);
  if (overlaps(g)) {
    // An expanded base: record the view against the base's own base.
    const auto* parent = dynamic_cast<const ViewNode*>(edge.fn.get());
    PLEXUS_CHECK(parent != nullptr, ErrorCode::Unsupported,
                 "{}: a view of a tensor whose elements share memory and that no view made "
                 "(its grad_fn is {}) is not supported; clone it first",
                 name, edge.fn ? edge.fn->name() : "none");
    g = parent->base();
    edge = parent->next()[0];
  }
  auto node = std::make_shared<ViewNode>(name, std::move(g), std::move(edge), view);
  set_history(view, std::move(node));
  meta_of(view).is_view = true;
}

}  // namespace plexus::autograd
