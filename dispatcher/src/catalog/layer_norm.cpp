// layer_norm and the gradient with respect to its input.
//
// What the kernel receives: input in the compute dtype; normalized_shape equal
// to input's trailing dims; weight and bias None or of shape normalized_shape in
// the compute dtype.
//
// layer_norm_backward(grad_output, input, normalized_shape, weight, eps) is
// the gradient with respect to input: rstd (gw - mean(gw) - xhat mean(gw
// xhat)) per row, gw = grad_output * weight, xhat = (x - mean) rstd. Its
// kernel receives grad_output and input of one shape and floating dtype and
// weight as layer_norm's kernel does. The gradients of weight and bias are
// products and sums autograd's rule writes itself (g xhat, g).
#include <vector>

#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// An optional affine tensor of layer_norm: of shape normalized_shape, floating.
void prepare_affine(MetaContext& ctx, size_t i, IntArrayRef normalized, DType t) {
  const Tensor* p = ctx.optional_tensor(i);
  if (!p) return;
  PLEXUS_CHECK_ARG(p->sizes() == normalized, ctx.name(i),
                   "layer_norm expects {} of shape normalized_shape {}, got {}", ctx.name(i),
                   shape_str(normalized), shape_str(p->sizes()));
  PLEXUS_CHECK_ARG(is_floating(p->dtype()), ctx.name(i), "layer_norm expects a floating {}, got {}",
                   ctx.name(i), dtype_name(p->dtype()));
  prepare_input(ctx, i, t);
}

// layer_norm(input, normalized_shape, weight, bias, eps): normalizes over the
// trailing dims named by normalized_shape.
OutputSpec layer_norm_meta(MetaContext& ctx) {
  const Tensor& input = ctx.tensor(0);
  IntArrayRef ns = ctx.int_list(1);
  PLEXUS_CHECK_ARG(!ns.empty(), ctx.name(1), "layer_norm needs at least one normalized dim");
  int64_t n = static_cast<int64_t>(ns.size());
  bool trailing = input.dim() >= n && IntArrayRef(input.sizes().end() - n, ns.size()) == ns;
  PLEXUS_CHECK_ARG(trailing, ctx.name(1),
                   "normalized_shape {} must equal the last {} dims of input of shape {}",
                   shape_str(ns), n, shape_str(input.sizes()));
  DType t = input.dtype();
  PLEXUS_CHECK_ARG(is_floating(t), ctx.name(0), "layer_norm needs a floating input, got {}",
                   dtype_name(t));
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  prepare_affine(ctx, 2, ns, t);
  prepare_affine(ctx, 3, ns, t);
  return {Shape(input.sizes().begin(), input.sizes().end()), t, t};
}

// layer_norm_backward(grad_output, input, normalized_shape, weight, eps)
OutputSpec layer_norm_backward_meta(MetaContext& ctx) {
  const Tensor& grad = ctx.tensor(0);
  const Tensor& input = ctx.tensor(1);
  IntArrayRef ns = ctx.int_list(2);
  PLEXUS_CHECK_ARG(!ns.empty(), ctx.name(2), "layer_norm needs at least one normalized dim");
  int64_t n = static_cast<int64_t>(ns.size());
  bool trailing = input.dim() >= n && IntArrayRef(input.sizes().end() - n, ns.size()) == ns;
  PLEXUS_CHECK_ARG(trailing, ctx.name(2),
                   "normalized_shape {} must equal the last {} dims of input of shape {}",
                   shape_str(ns), n, shape_str(input.sizes()));
  DType t = input.dtype();
  PLEXUS_CHECK_ARG(is_floating(t), ctx.name(1), "layer_norm needs a floating input, got {}",
                   dtype_name(t));
  check_dtype(ctx, 1, t, ctx.op().catalog_dtypes());
  PLEXUS_CHECK_ARG(grad.dtype() == t && grad.sizes() == input.sizes(), ctx.name(0),
                   "expected input's shape {} and dtype {}, got {} and {}",
                   shape_str(input.sizes()), dtype_name(t), shape_str(grad.sizes()),
                   dtype_name(grad.dtype()));
  prepare_affine(ctx, 3, ns, t);
  return {Shape(input.sizes().begin(), input.sizes().end()), t, t};
}

// layer_norm_backward.out, in catalog ops (float32 for float16/bfloat16).
void layer_norm_backward_composite(void*, KernelCall& call) {
  const Tensor& in = call.args[1].to_tensor();
  const DType t = accumulate_dtype(in.dtype());
  Tensor x = in.to(t), g = call.args[0].to_tensor().to(t);
  const int64_t k = static_cast<int64_t>(call.args[2].to_int_list().size());
  std::vector<int64_t> dims;
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
  const double eps = call.args[4].to_double();
  Tensor centred = x - mean(x, dims, true);
  Tensor rstd = rsqrt(mean(centred * centred, dims, true) + eps);
  Tensor xhat = centred * rstd;
  Tensor gw = call.args[3].is_none() ? g : g * call.args[3].to_tensor().to(t);
  Tensor inner = gw - mean(gw, dims, true) - xhat * mean(gw * xhat, dims, true);
  call.args[5].to_tensor().copy_(rstd * inner);
}

}  // namespace

void define_layer_norm_ops(Dispatcher& d) {
  d.define({.functional = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                          "Tensor? bias=None, float eps=1e-05) -> Tensor",
            .out = "layer_norm.out(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = layer_norm_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "layer_norm_backward(Tensor grad_output, Tensor input, "
                          "int[] normalized_shape, Tensor? weight=None, float eps=1e-05) -> Tensor",
            .out = "layer_norm_backward.out(Tensor grad_output, Tensor input, "
                   "int[] normalized_shape, Tensor? weight=None, float eps=1e-05, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = layer_norm_backward_meta,
            .composite = layer_norm_backward_composite,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
