// Rules of the shape family: cat. (Views are not dispatched ops: views.cpp.)
#include "rule.h"

namespace plexus::autograd {
namespace {

// cat(tensors, dim): each input gets its slice of the gradient along dim.
// 1-D empty inputs, which cat skips whatever the other shapes (PyTorch's
// legacy rule), get none.
void cat_backward(BackwardContext& c) {
  const SavedArgs::ListSizes& sizes = c.list_sizes(0);
  const Tensor& g = c.grad();
  int64_t dim = c.integer(1);
  if (dim < 0) dim += g.dim();
  int64_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Shape& s = sizes[k];
    if (s.size() == 1 && s[0] == 0 && g.dim() != 1) continue;
    int64_t n = s[static_cast<size_t>(dim)];
    c.set_list(0, k, g.narrow(dim, offset, n));
    offset += n;
  }
}

}  // namespace

void add_shape_rules(RuleTable& t) {
  t.push_back({"cat", "CatBackward", 0, false, cat_backward});
}

}  // namespace plexus::autograd
