// Ops whose results are integers or bools: comparisons, argmax/argmin,
// logical_not. They are not differentiable: their results never require grad.
#include "rule.h"

namespace plexus::autograd {

void add_compare_rules(RuleTable& t) {
  static constexpr const char* kOps[] = {
      "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar",
      "le.Tensor", "le.Scalar", "gt.Tensor", "gt.Scalar", "ge.Tensor", "ge.Scalar",
      "argmax",    "argmin",    "logical_not"};
  for (const char* op : kOps) t.push_back({op, "", 0, false, nullptr});
}

}  // namespace plexus::autograd
