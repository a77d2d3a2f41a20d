// Gathers by index: embedding and its backward op, and index_select.
//
// What the kernel receives: weight [num, dim] in its dtype (the compute dtype);
// indices as given, int32 or int64 (the kernel checks their values are in range).
//
// embedding_backward(grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq) is the gradient of embedding's result with respect to
// its weight: a scatter-add of each position's gradient row into the row its
// index picked (repeated indices add up), none into padding_idx's row, and
// with scale_grad_by_freq each row divided by how many positions picked it.
// Its kernel receives grad_output [indices..., dim] in a floating dtype,
// indices as given, and padding_idx wrapped into [0, num_weights) or -1
// (none). Its composite default is a one-hot product (positions x rows);
// plugins register the scatter-add.
// index_select(self, dim, index): the slices of self along dim that index
// (int32 or int64, 0-d or 1-D) names, in its order, repeats allowed. Its
// kernel receives dim wrapped and index as given; it checks every index.
// Its composite default is embedding over self with dim moved to the front.
#include <numeric>

#include "catalog/catalog.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// embedding(weight, indices, padding_idx, ...): rows of weight picked by indices.
OutputSpec embedding_meta(MetaContext& ctx) {
  const Tensor& weight = ctx.tensor(0);
  const Tensor& indices = ctx.tensor(1);
  PLEXUS_CHECK_ARG(weight.dim() == 2, ctx.name(0),
                   "embedding expects a 2-D weight [num_embeddings, embedding_dim], got shape {}",
                   shape_str(weight.sizes()));
  PLEXUS_CHECK_ARG(indices.dtype() == DType::I32 || indices.dtype() == DType::I64, ctx.name(1),
                   "embedding expects int32 or int64 indices, got {}", dtype_name(indices.dtype()));
  check_dtype(ctx, 0, weight.dtype(), ctx.op().catalog_dtypes());
  int64_t num = weight.size(0), pad = ctx.integer(2);
  PLEXUS_CHECK_ARG(pad == -1 || (pad >= -num && pad < num), ctx.name(2),
                   "must be -1 (none) or an index into the {} rows of weight, got {}", num, pad);
  Shape out(indices.sizes().begin(), indices.sizes().end());
  out.push_back(weight.size(1));
  return {out, weight.dtype(), weight.dtype()};
}

// embedding_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
OutputSpec embedding_backward_meta(MetaContext& ctx) {
  const Tensor& grad = ctx.tensor(0);
  const Tensor& indices = ctx.tensor(1);
  PLEXUS_CHECK_ARG(indices.dtype() == DType::I32 || indices.dtype() == DType::I64, ctx.name(1),
                   "embedding_backward expects int32 or int64 indices, got {}",
                   dtype_name(indices.dtype()));
  check_dtype(ctx, 0, grad.dtype(), ctx.op().catalog_dtypes());
  bool fits = grad.dim() == indices.dim() + 1;
  for (int64_t d = 0; fits && d < indices.dim(); ++d) fits = grad.size(d) == indices.size(d);
  PLEXUS_CHECK_ARG(fits, ctx.name(0),
                   "expected grad_output of shape indices.shape + [embedding_dim] ({} + [dim]), "
                   "got {}",
                   shape_str(indices.sizes()), shape_str(grad.sizes()));
  int64_t num = ctx.integer(2), pad = ctx.integer(3);
  PLEXUS_CHECK_ARG(num >= 0, ctx.name(2), "must be non-negative, got {}", num);
  PLEXUS_CHECK_ARG(pad == -1 || (pad >= -num && pad < num), ctx.name(3),
                   "must be -1 (none) or an index into the {} rows of weight, got {}", num, pad);
  if (pad < -1) ctx.set_value(3, Value::integer(pad + num));
  return {{num, grad.size(-1)}, grad.dtype(), grad.dtype()};
}

// embedding_backward.out: onehot(indices)^T @ grad_output, which costs
// positions x rows (kernels scatter-add instead), in float32 for float16 and
// bfloat16. The indices are checked first, as kernels do: that reads two
// numbers back from the device (so a graph capture through this composite
// stops there and says why).
void embedding_backward_composite(void*, KernelCall& call) {
  const Tensor& grad = call.args[0].to_tensor();
  const Tensor& indices = call.args[1].to_tensor();
  const int64_t rows = call.args[2].to_int(), padding = call.args[3].to_int();
  const bool by_freq = call.args[4].to_bool();
  const Tensor& out = call.args[5].to_tensor();
  const DType t = accumulate_dtype(grad.dtype());
  const int64_t positions = indices.numel(), width = grad.size(-1);
  if (positions == 0 || rows == 0) {
    out.fill_(Scalar(0));
    return;
  }
  const int64_t lo = amin(indices).item<int64_t>(), hi = amax(indices).item<int64_t>();
  PLEXUS_CHECK_ARG(lo >= 0 && hi < rows, "indices",
                   "index {} is out of range for weight with {} rows (expected 0 <= index < {})",
                   lo < 0 ? lo : hi, rows, rows);
  Tensor all = arange(0, rows, 1, TensorOptions(indices.dtype(), indices.device())).unsqueeze(0);
  Tensor picked = eq(indices.reshape({positions, 1}), all);  // [positions, rows]
  if (padding >= 0) picked = mul(picked, ne(all, Scalar(padding)));  // and, of bools
  Tensor onehot = picked.to(t);
  Tensor sum = mm(onehot.t(), grad.reshape({positions, width}).to(t));
  if (by_freq) {
    Tensor counts = eq(indices.reshape({positions, 1}), all).to(t).sum(std::vector<int64_t>{0}).unsqueeze(1);
    sum = sum / clamp(counts, Scalar(1.0), std::nullopt);
  }
  out.copy_(sum);
}

// index_select(self, dim, index)
OutputSpec index_select_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  const Tensor& index = ctx.tensor(2);
  PLEXUS_CHECK_ARG(index.dtype() == DType::I32 || index.dtype() == DType::I64, ctx.name(2),
                   "index_select expects int32 or int64 indices, got {}",
                   dtype_name(index.dtype()));
  PLEXUS_CHECK_ARG(index.dim() <= 1, ctx.name(2),
                   "index_select expects a 0-d or 1-D index, got shape {}",
                   shape_str(index.sizes()));
  check_dtype(ctx, 0, self.dtype(), ctx.op().catalog_dtypes());
  int64_t dim = naming_argument(ctx.name(1), [&] { return wrap_dim(ctx.integer(1), self.dim()); });
  ctx.set_value(1, Value::integer(dim));
  Shape out(self.sizes().begin(), self.sizes().end());
  if (out.empty()) {
    PLEXUS_CHECK_ARG(index.numel() == 1, ctx.name(2),
                     "index_select of a 0-d self takes one index, got {}", index.numel());
  } else {
    out[static_cast<size_t>(dim)] = index.numel();
  }
  return {out, self.dtype(), self.dtype()};
}

// self with `dim` moved to the front, as [size(dim), everything else].
Tensor rows_along(const Tensor& self, int64_t dim) {
  Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  std::vector<int64_t> order(static_cast<size_t>(x.dim()));
  std::iota(order.begin(), order.end(), 0);
  order.erase(order.begin() + dim);
  order.insert(order.begin(), dim);
  Tensor front = x.permute(order);
  return front.reshape({x.size(dim), x.numel() / std::max<int64_t>(x.size(dim), 1)});
}

// index_select.out: embedding of the rows along dim, moved back into place.
void index_select_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  const int64_t dim = call.args[1].to_int();
  const Tensor& index = call.args[2].to_tensor();
  const Tensor& out = call.args[3].to_tensor();
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  if (index.numel() > 0) {
    const int64_t lo = amin(index).item<int64_t>(), hi = amax(index).item<int64_t>();
    PLEXUS_CHECK_ARG(lo >= 0 && hi < n, "index",
                     "index {} is out of range for dim {} of size {} (expected 0 <= index < {})",
                     lo < 0 ? lo : hi, dim, n, n);
  }
  if (out.numel() == 0) return;
  if (self.dim() == 0) {
    out.copy_(self);
    return;
  }
  Tensor picked = embedding(rows_along(self, dim), index.reshape({-1}));  // [m, rest]
  // Back to self's dim order, through out's own layout.
  std::vector<int64_t> order(static_cast<size_t>(self.dim()));
  std::iota(order.begin(), order.end(), 0);
  order.erase(order.begin() + dim);
  order.insert(order.begin(), dim);
  std::vector<int64_t> front_sizes;
  for (int64_t d : order) front_sizes.push_back(out.size(d));
  out.permute(order).copy_(picked.reshape(front_sizes));
}

}  // namespace

void define_embedding_ops(Dispatcher& d) {
  d.define({.functional = "embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
                          "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
            .out = "embedding.out(Tensor weight, Tensor indices, int padding_idx=-1, "
                   "bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = embedding_meta,
            .dtypes = kAllTypes});
  d.define({.functional = "embedding_backward(Tensor grad_output, Tensor indices, int num_weights, "
                          "int padding_idx=-1, bool scale_grad_by_freq=False) -> Tensor",
            .out = "embedding_backward.out(Tensor grad_output, Tensor indices, int num_weights, "
                   "int padding_idx=-1, bool scale_grad_by_freq=False, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = embedding_backward_meta,
            .composite = embedding_backward_composite,
            .dtypes = kFloatTypes});
  d.define({.functional = "index_select(Tensor self, int dim, Tensor index) -> Tensor",
            .out = "index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = index_select_meta,
            .composite = index_select_composite,
            .dtypes = kAllTypes});
}

}  // namespace plexus
