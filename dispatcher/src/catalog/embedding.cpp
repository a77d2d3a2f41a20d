// embedding.
//
// What the kernel receives: weight [num, dim] in its dtype (the compute dtype);
// indices as given, int32 or int64 (the kernel checks their values are in range).
#include "catalog/catalog.h"
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

}  // namespace

void define_embedding_ops(Dispatcher& d) {
  d.define({.functional = "embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
                          "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
            .out = "embedding.out(Tensor weight, Tensor indices, int padding_idx=-1, "
                   "bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = embedding_meta,
            .dtypes = kAllTypes});
}

}  // namespace plexus
