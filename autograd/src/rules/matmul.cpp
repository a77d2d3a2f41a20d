// Rules of the matmul family: mm, bmm, addmm. matmul and linear are
// composites: their decompositions record these.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// mm(self, mat2): d/dself = g mat2^T, d/dmat2 = self^T g.
void mm_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, mm(c.grad(), c.input(1).t()));
  if (c.needs(1)) c.set(1, mm(c.input(0).t(), c.grad()));
}
void bmm_backward(BackwardContext& c) {
  if (c.needs(0)) c.set(0, bmm(c.grad(), c.input(1).transpose(1, 2)));
  if (c.needs(1)) c.set(1, bmm(c.input(0).transpose(1, 2), c.grad()));
}
// t scaled by s; t itself when s is 1 (linear's case: no op to run).
Tensor scaled(const Tensor& t, Scalar s) {
  if (s.to_double() == 1.0) return t;
  return mul(t, s);
}
// addmm(self, mat1, mat2, beta, alpha): beta self + alpha mat1 mat2.
void addmm_backward(BackwardContext& c) {
  Scalar beta = c.scalar(3), alpha = c.scalar(4);
  if (c.needs(0)) c.set(0, scaled(c.grad(), beta));
  if (c.needs(1)) c.set(1, scaled(mm(c.grad(), c.input(2).t()), alpha));
  if (c.needs(2)) c.set(2, scaled(mm(c.input(1).t(), c.grad()), alpha));
}

}  // namespace

void add_matmul_rules(RuleTable& t) {
  t.push_back({"mm", "MmBackward", arg(0) | arg(1), false, mm_backward});
  t.push_back({"bmm", "BmmBackward", arg(0) | arg(1), false, bmm_backward});
  t.push_back({"addmm", "AddmmBackward", arg(1) | arg(2), false, addmm_backward});
}

}  // namespace plexus::autograd
