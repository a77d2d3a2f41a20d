// Matrix products: mm, bmm, addmm (kernels), and matmul, linear (composites).
//
// What the kernels receive: mm.out and bmm.out get self and mat2 as given
// (same dtype, checked shapes; any strides). addmm.out gets self already
// expanded to [n, p] (possibly stride 0), mat1, mat2, beta and alpha. A
// backend without addmm.out runs the composite beta * self + alpha * (mat1 @ mat2).
#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// Checks that tensor argument i has `ndim` dims.
void check_rank(MetaContext& ctx, size_t i, int64_t ndim, const char* layout) {
  const Tensor& t = ctx.tensor(i);
  PLEXUS_CHECK_ARG(t.dim() == ndim, ctx.name(i),
                   "{} expects a {}-D tensor {}, got a {}-D one of shape {}",
                   ctx.op().schema().name, ndim, layout, t.dim(), shape_str(t.sizes()));
}

// Tensor arguments a and b must have the same dtype (no promotion in products).
void check_same_dtype(MetaContext& ctx, size_t a, size_t b) {
  DType ta = ctx.tensor(a).dtype(), tb = ctx.tensor(b).dtype();
  PLEXUS_CHECK_ARG(ta == tb, ctx.name(b),
                   "{} expects {} and {} to have the same dtype, got {} and {}; convert one "
                   "with .to()",
                   ctx.op().schema().name, ctx.name(a), ctx.name(b), dtype_name(ta),
                   dtype_name(tb));
}

// The contracted sizes must agree: columns of a with rows of b.
void check_inner(MetaContext& ctx, size_t a, size_t b) {
  const Tensor& ta = ctx.tensor(a);
  const Tensor& tb = ctx.tensor(b);
  int64_t k1 = ta.size(-1), k2 = tb.size(-2);
  PLEXUS_CHECK_ARG(k1 == k2, ctx.name(b),
                   "{}: {} of shape {} and {} of shape {} cannot be multiplied: {} has {} "
                   "columns but {} has {} rows",
                   ctx.op().schema().name, ctx.name(a), shape_str(ta.sizes()), ctx.name(b),
                   shape_str(tb.sizes()), ctx.name(a), k1, ctx.name(b), k2);
}

// mm(self, mat2): [n, k] @ [k, p] -> [n, p]
OutputSpec mm_meta(MetaContext& ctx) {
  check_rank(ctx, 0, 2, "[n, k]");
  check_rank(ctx, 1, 2, "[k, p]");
  check_same_dtype(ctx, 0, 1);
  check_inner(ctx, 0, 1);
  DType t = ctx.tensor(0).dtype();
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  return {{ctx.tensor(0).size(0), ctx.tensor(1).size(1)}, t, t};
}

// bmm(self, mat2): [b, n, k] @ [b, k, p] -> [b, n, p]
OutputSpec bmm_meta(MetaContext& ctx) {
  check_rank(ctx, 0, 3, "[b, n, k]");
  check_rank(ctx, 1, 3, "[b, k, p]");
  check_same_dtype(ctx, 0, 1);
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  PLEXUS_CHECK_ARG(a.size(0) == b.size(0), ctx.name(1),
                   "bmm expects the same batch size, got self of shape {} and mat2 of shape {}",
                   shape_str(a.sizes()), shape_str(b.sizes()));
  check_inner(ctx, 0, 1);
  check_dtype(ctx, 0, a.dtype(), ctx.op().catalog_dtypes());
  return {{a.size(0), a.size(1), b.size(2)}, a.dtype(), a.dtype()};
}

// addmm(self, mat1, mat2, beta, alpha): beta * self + alpha * (mat1 @ mat2)
OutputSpec addmm_meta(MetaContext& ctx) {
  check_rank(ctx, 1, 2, "[n, k]");
  check_rank(ctx, 2, 2, "[k, p]");
  check_same_dtype(ctx, 1, 2);
  check_same_dtype(ctx, 1, 0);
  check_inner(ctx, 1, 2);
  DType t = ctx.tensor(1).dtype();
  check_dtype(ctx, 1, t, ctx.op().catalog_dtypes());
  check_scalar_fits(ctx, 3, t);
  check_scalar_fits(ctx, 4, t);
  Shape shape{ctx.tensor(1).size(0), ctx.tensor(2).size(1)};
  const Tensor& self = ctx.tensor(0);
  Shape b = naming_argument(ctx.name(0), [&] { return broadcast_shapes(self.sizes(), shape); });
  PLEXUS_CHECK_ARG(IntArrayRef(b) == IntArrayRef(shape), ctx.name(0),
                   "self of shape {} does not broadcast to the product's shape {}",
                   shape_str(self.sizes()), shape_str(shape));
  if (IntArrayRef(self.sizes()) != IntArrayRef(shape)) ctx.set_tensor(0, self.expand(shape));
  return {shape, t, t};
}

// addmm.out when a backend has no kernel for it: mm, then scaling and add.
void addmm_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  Scalar beta = call.args[3].to_scalar(), alpha = call.args[4].to_scalar();
  const Tensor& out = call.args.back().to_tensor();
  Tensor product = mm(call.args[1].to_tensor(), call.args[2].to_tensor());
  if (beta.to_double() == 0)  // self is ignored, as in PyTorch (even its NaNs)
    out.copy_(alpha.to_double() == 1 ? product : mul(product, alpha));
  else
    out.copy_(add(beta.to_double() == 1 ? self : mul(self, beta), product, alpha));
}

// Sizes of t without its last `n` dims.
Shape batch_sizes(const Tensor& t, int64_t n) {
  return Shape(t.sizes().begin(), t.sizes().end() - n);
}

// matmul for self and other of at least one dim each, per PyTorch's rules:
// 1-D x 1-D is a dot product, 2-D x 2-D is mm, 1-D operands gain a dim that
// is removed afterwards, and batch dims broadcast.
Tensor matmul_impl(const Tensor& self, const Tensor& other) {
  PLEXUS_CHECK_ARG(self.dim() > 0, "self", "matmul needs at least 1-D arguments, got a 0-d self");
  PLEXUS_CHECK_ARG(other.dim() > 0, "other",
                   "matmul needs at least 1-D arguments, got a 0-d other");
  PLEXUS_CHECK_ARG(self.dtype() == other.dtype(), "other",
                   "matmul expects self and other to have the same dtype, got {} and {}",
                   dtype_name(self.dtype()), dtype_name(other.dtype()));
  int64_t k1 = self.size(-1), k2 = other.size(other.dim() == 1 ? 0 : -2);
  PLEXUS_CHECK_ARG(k1 == k2, "other",
                   "matmul: self of shape {} and other of shape {} cannot be multiplied ({} vs "
                   "{} in the contracted dim)",
                   shape_str(self.sizes()), shape_str(other.sizes()), k1, k2);
  int64_t d1 = self.dim(), d2 = other.dim();
  if (d1 <= 2 && d2 <= 2) {
    Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
    Tensor b = d2 == 1 ? other.unsqueeze(1) : other;
    Tensor r = mm(a, b);
    if (d2 == 1) r = r.squeeze(1);
    if (d1 == 1) r = r.squeeze(0);
    return r;
  }
  if (d1 >= 3 && d2 <= 2) {
    // Fold self's batch dims into its rows: one mm instead of a bmm.
    Shape out = batch_sizes(self, 1);
    int64_t rows = checked_numel(out, "matmul rows");
    Tensor r = mm(self.reshape({rows, k1}), d2 == 1 ? other.unsqueeze(1) : other);
    if (d2 == 2) out.push_back(other.size(1));
    return r.view(out);
  }
  // Batched: broadcast the batch dims, then one bmm over [B, n, k] x [B, k, p].
  Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
  Tensor b = d2 == 1 ? other.unsqueeze(1) : other;
  int64_t n = a.size(-2), p = b.size(-1);
  Shape batch = naming_argument(
      "other", [&] { return broadcast_shapes(batch_sizes(a, 2), batch_sizes(b, 2)); });
  int64_t nbatch = checked_numel(batch, "matmul batch");
  Shape sa = batch, sb = batch;
  sa.insert(sa.end(), {n, k1});
  sb.insert(sb.end(), {k1, p});
  Tensor r = bmm(a.expand(sa).reshape({nbatch, n, k1}), b.expand(sb).reshape({nbatch, k1, p}));
  Shape out = batch;
  if (d1 > 1) out.push_back(n);
  if (d2 > 1) out.push_back(p);
  return r.view(out);
}

// matmul(Tensor self, Tensor other) -> Tensor
void matmul_composite(void*, KernelCall& call) {
  call.result = matmul_impl(call.args[0].to_tensor(), call.args[1].to_tensor());
}

// linear(input, weight, bias): input @ weight.T + bias, via addmm for 2-D input.
void linear_composite(void*, KernelCall& call) {
  const Tensor& input = call.args[0].to_tensor();
  const Tensor& weight = call.args[1].to_tensor();
  const Tensor* bias = call.args[2].is_none() ? nullptr : &call.args[2].to_tensor();
  PLEXUS_CHECK_ARG(weight.dim() == 1 || weight.dim() == 2, "weight",
                   "linear expects a 2-D weight [out_features, in_features] (or 1-D), got shape "
                   "{}",
                   shape_str(weight.sizes()));
  PLEXUS_CHECK_ARG(input.dim() > 0, "input", "linear expects an input with at least 1 dim");
  PLEXUS_CHECK_ARG(input.size(-1) == weight.size(-1), "weight",
                   "linear: input of shape {} has {} features but weight of shape {} takes {}",
                   shape_str(input.sizes()), input.size(-1), shape_str(weight.sizes()),
                   weight.size(-1));
  PLEXUS_CHECK_ARG(weight.dtype() == input.dtype(), "weight",
                   "linear expects input and weight to have the same dtype, got {} and {}",
                   dtype_name(input.dtype()), dtype_name(weight.dtype()));
  Shape out = batch_sizes(input, 1);
  if (weight.dim() == 2) out.push_back(weight.size(0));
  if (bias) {
    PLEXUS_CHECK_ARG(bias->dtype() == input.dtype(), "bias",
                     "linear expects input and bias to have the same dtype, got {} and {}",
                     dtype_name(input.dtype()), dtype_name(bias->dtype()));
    Shape b = naming_argument("bias", [&] { return broadcast_shapes(out, bias->sizes()); });
    PLEXUS_CHECK_ARG(IntArrayRef(b) == IntArrayRef(out), "bias",
                     "linear: bias of shape {} does not broadcast to the output shape {}",
                     shape_str(bias->sizes()), shape_str(out));
  }
  Tensor wt = weight.t();
  if (bias && input.dim() == 2 && weight.dim() == 2) {
    call.result = addmm(*bias, input, wt);
    return;
  }
  Tensor r = matmul_impl(input, wt);
  call.result = bias ? add(r, *bias) : r;
}

}  // namespace

void define_matmul_ops(Dispatcher& d) {
  d.define({.functional = "mm(Tensor self, Tensor mat2) -> Tensor",
            .out = "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = mm_meta,
            .dtypes = kNumericTypes});
  d.define({.functional = "bmm(Tensor self, Tensor mat2) -> Tensor",
            .out = "bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = bmm_meta,
            .dtypes = kNumericTypes});
  d.define({.functional = "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
                          "Scalar alpha=1) -> Tensor",
            .out = "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
                   "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
            .meta = addmm_meta,
            .composite = addmm_composite,
            .dtypes = kNumericTypes});
  d.define_direct("matmul(Tensor self, Tensor other) -> Tensor", matmul_composite);
  d.define_direct("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
                  linear_composite);
}

}  // namespace plexus
