// Rules of the gathers by index: embedding, index_select.
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

// index_select(self, dim, index): each selected slice's gradient added back
// into the slice it came from (repeats add up): embedding_backward over the
// gradient with dim moved to the front, then moved back.
void index_select_backward_rule(BackwardContext& c) {
  const std::vector<int64_t> sizes(c.input_sizes(0).begin(), c.input_sizes(0).end());
  const Tensor& index = c.input(2);
  Tensor g = c.grad();
  if (sizes.empty()) {  // a 0-d self: its one element, picked index.numel() times
    c.set(0, sum(g).reshape({}));
    return;
  }
  const int64_t dim = c.integer(1) < 0 ? c.integer(1) + static_cast<int64_t>(sizes.size())
                                        : c.integer(1);
  std::vector<int64_t> order(sizes.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int64_t>(d);
  order.erase(order.begin() + dim);
  order.insert(order.begin(), dim);
  Tensor front = g.permute(order);
  const int64_t m = front.size(0), rest = m ? front.numel() / m : 0;
  std::vector<int64_t> rest_sizes;
  for (size_t d = 1; d < order.size(); ++d) rest_sizes.push_back(sizes[static_cast<size_t>(order[d])]);
  int64_t rest_count = 1;
  for (int64_t v : rest_sizes) rest_count *= v;
  Tensor rows = embedding_backward(front.reshape({m, m ? rest : rest_count}), index.reshape({-1}),
                                   sizes[static_cast<size_t>(dim)]);
  std::vector<int64_t> front_sizes{sizes[static_cast<size_t>(dim)]};
  front_sizes.insert(front_sizes.end(), rest_sizes.begin(), rest_sizes.end());
  // Undo the move: the inverse permutation of `order`.
  std::vector<int64_t> inverse(order.size());
  for (size_t d = 0; d < order.size(); ++d) inverse[static_cast<size_t>(order[d])] = static_cast<int64_t>(d);
  c.set(0, rows.reshape(front_sizes).permute(inverse));
}

}  // namespace

void add_embedding_rules(RuleTable& t) {
  t.push_back({"index_select", "IndexSelectBackward", arg(2), false, index_select_backward_rule});
  t.push_back({"embedding", "EmbeddingBackward", arg(1), false, embedding_backward_rule});
}

}  // namespace plexus::autograd
