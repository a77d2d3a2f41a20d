// conv2d.
//
// What the kernel receives: 4-D input [N, C, H, W], weight [C_out, C / groups,
// kH, kW] and bias (None or [C_out]) in one dtype; stride, padding and dilation
// as two values. The C++ API (plexus::conv2d) also takes unbatched 3-D input:
// it adds the batch dim around the call.
#include "catalog/catalog.h"
#include "catalog/window.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

using catalog::pair_arg;
using catalog::window;
using catalog::Window;

// Checks the dtypes of conv2d's tensors: floating and all the same.
DType conv_dtype(MetaContext& ctx) {
  DType t = ctx.tensor(0).dtype();
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  for (size_t i : {size_t{1}, size_t{2}}) {
    const Tensor* p = ctx.optional_tensor(i);
    PLEXUS_CHECK_ARG(!p || p->dtype() == t, ctx.name(i),
                     "conv2d expects input and {} to have the same dtype, got {} and {}",
                     ctx.name(i), dtype_name(t), dtype_name(p->dtype()));
  }
  return t;
}

// conv2d(input, weight, bias, stride, padding, dilation, groups)
OutputSpec conv2d_meta(MetaContext& ctx) {
  const Tensor& input = ctx.tensor(0);
  const Tensor& weight = ctx.tensor(1);
  PLEXUS_CHECK_ARG(input.dim() == 4, ctx.name(0),
                   "conv2d expects a 4-D input [N, C, H, W], got shape {}",
                   shape_str(input.sizes()));
  PLEXUS_CHECK_ARG(weight.dim() == 4, ctx.name(1),
                   "conv2d expects a 4-D weight [C_out, C_in / groups, kH, kW], got shape {}",
                   shape_str(weight.sizes()));
  DType t = conv_dtype(ctx);
  auto stride = pair_arg(ctx, 3, 1, "positive");
  auto padding = pair_arg(ctx, 4, 0, "non-negative");
  auto dilation = pair_arg(ctx, 5, 1, "positive");
  int64_t groups = ctx.integer(6);
  PLEXUS_CHECK_ARG(groups > 0, ctx.name(6), "must be positive, got {}", groups);
  int64_t c_in = input.size(1), c_out = weight.size(0);
  PLEXUS_CHECK_ARG(weight.size(1) * groups == c_in, ctx.name(1),
                   "weight of shape {} with groups={} takes {} input channels, but input of "
                   "shape {} has {}",
                   shape_str(weight.sizes()), groups, weight.size(1) * groups,
                   shape_str(input.sizes()), c_in);
  PLEXUS_CHECK_ARG(c_out % groups == 0, ctx.name(1),
                   "the {} output channels of weight (shape {}) do not divide into groups={}",
                   c_out, shape_str(weight.sizes()), groups);
  if (const Tensor* bias = ctx.optional_tensor(2))
    PLEXUS_CHECK_ARG(bias->dim() == 1 && bias->size(0) == c_out, ctx.name(2),
                     "conv2d expects a bias of shape [{}] (one per output channel), got {}", c_out,
                     shape_str(bias->sizes()));
  Shape out{input.size(0), c_out};
  for (int s = 0; s < 2; ++s) {
    int64_t in = input.size(2 + s), k = weight.size(2 + s);
    PLEXUS_CHECK_ARG(k > 0, ctx.name(1),
                     "conv2d expects a non-empty kernel, got weight of shape {}",
                     shape_str(weight.sizes()));
    Window w = window(ctx, 4, in, k, padding[s], dilation[s]);
    PLEXUS_CHECK_ARG(w.padded >= w.span, ctx.name(1),
                     "the kernel ({} with dilation) is larger than the padded input ({}) in {}: "
                     "input of shape {}, weight of shape {}, padding {}",
                     w.span, w.padded, s == 0 ? "height" : "width", shape_str(input.sizes()),
                     shape_str(weight.sizes()), shape_str(padding));
    out.push_back((w.padded - w.span) / stride[s] + 1);
  }
  return {out, t, t};
}

}  // namespace

void define_conv_ops(Dispatcher& d) {
  d.define({.functional = "conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                          "int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) "
                          "-> Tensor",
            .out = "conv2d.out(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
                   "int[2] padding=0, int[2] dilation=1, int groups=1, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = conv2d_meta,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
