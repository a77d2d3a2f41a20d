// Rules of the random family: uniform_, normal_, bernoulli_. Each overwrites
// self with values that depend on no input, so, as for fill_, nothing flows
// back: a tensor filled this way has no gradient history.
#include "rule.h"

namespace plexus::autograd {
namespace {

void overwritten_backward(BackwardContext&) {}

}  // namespace

void add_random_rules(RuleTable& t) {
  t.push_back({"uniform_", "UniformBackward", 0, false, overwritten_backward});
  t.push_back({"normal_", "NormalBackward", 0, false, overwritten_backward});
  t.push_back({"bernoulli_.float", "BernoulliBackward", 0, false, overwritten_backward});
}

}  // namespace plexus::autograd
