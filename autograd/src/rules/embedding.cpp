// Rules of the embedding family.
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
// through the catalog's embedding_backward (a scatter-add where the plugin
// has a kernel). sparse gradients do not exist in plexus: the gradient is
// dense either way.
void embedding_backward_rule(BackwardContext& c) {
  c.set(0, embedding_backward(c.grad(), c.input(1), c.input_sizes(0)[0], c.integer(2),
                              c.boolean(3)));
}

}  // namespace

void add_embedding_rules(RuleTable& t) {
  t.push_back({"embedding", "EmbeddingBackward", arg(1), false, embedding_backward_rule});
}

}  // namespace plexus::autograd
