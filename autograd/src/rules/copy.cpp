// Rules of the copy family: copy_ (and so to() and clone(), its
// composites), fill_. The gradient of a copy crosses dtypes and devices back
// to the source (the engine converts it).
#include "rule.h"

namespace plexus::autograd {
namespace {

// copy_(self, src, non_blocking): self's old values are overwritten (no
// gradient); src gets the gradient, reduced to its shape when it broadcast.
void copy_backward(BackwardContext& c) {
  if (c.needs(1)) c.set(1, c.grad());
}
// fill_.Scalar(self, value): self's old values are gone.
void fill_backward(BackwardContext&) {}

}  // namespace

void add_copy_rules(RuleTable& t) {
  t.push_back({"copy_", "CopyBackward", 0, false, copy_backward});
  t.push_back({"fill_.Scalar", "FillBackward", 0, false, fill_backward});
}

}  // namespace plexus::autograd
