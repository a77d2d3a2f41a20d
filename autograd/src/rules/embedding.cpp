// Rules of the embedding family.
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): row r
// of the weight's gradient adds the gradients of every position that picked
// r (repeated indices add up; with scale_grad_by_freq, divided by how many
// positions picked r); the padding row gets none. Written as
// onehot(indices)^T @ grad, which costs positions x rows: a scatter-add op
// with kernels is the next step for large vocabularies.
void embedding_backward(BackwardContext& c) {
  const Tensor& indices = c.input(1);
  const Tensor& g = c.grad();
  const int64_t rows = c.input_sizes(0)[0], width = g.size(-1);
  const int64_t positions = indices.numel();
  Tensor idx = indices.reshape({positions, 1});
  Tensor all = arange(0, rows, 1, TensorOptions(indices.dtype(), indices.device())).unsqueeze(0);
  Tensor picked = eq(idx, all);  // [positions, rows]
  int64_t padding = c.integer(2);
  if (padding >= 0) picked = mul(picked, ne(all, Scalar(padding)));
  Tensor onehot = picked.to(g.dtype());
  Tensor grad = mm(onehot.t(), g.reshape({positions, width}));
  if (c.boolean(3)) {
    Tensor counts = sum(onehot, std::vector<int64_t>{0}).unsqueeze(1);
    grad = div(grad, clamp(counts, Scalar(1.0), std::nullopt));
  }
  c.set(0, grad);
}

}  // namespace

void add_embedding_rules(RuleTable& t) {
  t.push_back({"embedding", "EmbeddingBackward", arg(1), false, embedding_backward});
}

}  // namespace plexus::autograd
