// conv2d and its two backward ops.
//
// What the kernel receives: 4-D input [N, C, H, W], weight [C_out, C / groups,
// kH, kW] and bias (None or [C_out]) in one dtype; stride, padding and dilation
// as two values. The C++ API (plexus::conv2d) also takes unbatched 3-D input:
// it adds the batch dim around the call.
//
// conv2d_backward_input(grad_output, weight, input_size, ...) and
// conv2d_backward_weight(grad_output, input, weight_size, ...) are the
// gradients autograd's conv2d rule asks for: the gradient of conv2d's result
// with respect to its input and its weight, given grad_output of the result's
// shape [N, C_out, oH, oW]. Their kernels receive 4-D tensors of one floating
// dtype, the size argument as four values, and stride, padding and dilation as
// two values. Both have composite defaults in catalog ops (im2col through a
// strided view, then mm), so every plugin has them; a plugin may register
// native kernels.
#include <cmath>

#include "catalog/catalog.h"
#include "plexus/factories.h"
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

// The output sizes [N, C_out, oH, oW] of a conv2d of an input of sizes `in`
// with a weight of sizes `wt`, checking stride (3), padding (4), dilation (5)
// and groups (6); errors about the weight name argument `wt_arg`.
Shape conv_output_sizes(MetaContext& ctx, IntArrayRef in, IntArrayRef wt, size_t wt_arg) {
  auto stride = pair_arg(ctx, 3, 1, "positive");
  auto padding = pair_arg(ctx, 4, 0, "non-negative");
  auto dilation = pair_arg(ctx, 5, 1, "positive");
  int64_t groups = ctx.integer(6);
  PLEXUS_CHECK_ARG(groups > 0, ctx.name(6), "must be positive, got {}", groups);
  PLEXUS_CHECK_ARG(wt[1] * groups == in[1], ctx.name(wt_arg),
                   "weight of shape {} with groups={} takes {} input channels, but input of "
                   "shape {} has {}",
                   shape_str(wt), groups, wt[1] * groups, shape_str(in), in[1]);
  PLEXUS_CHECK_ARG(wt[0] % groups == 0, ctx.name(wt_arg),
                   "the {} output channels of weight (shape {}) do not divide into groups={}",
                   wt[0], shape_str(wt), groups);
  Shape out{in[0], wt[0]};
  for (int s = 0; s < 2; ++s) {
    PLEXUS_CHECK_ARG(wt[2 + s] > 0, ctx.name(wt_arg),
                     "conv2d expects a non-empty kernel, got weight of shape {}", shape_str(wt));
    Window w = window(ctx, 4, in[2 + s], wt[2 + s], padding[s], dilation[s]);
    PLEXUS_CHECK_ARG(w.padded >= w.span, ctx.name(wt_arg),
                     "the kernel ({} with dilation) is larger than the padded input ({}) in {}: "
                     "input of shape {}, weight of shape {}, padding {}",
                     w.span, w.padded, s == 0 ? "height" : "width", shape_str(in), shape_str(wt),
                     shape_str(padding));
    out.push_back((w.padded - w.span) / stride[s] + 1);
  }
  return out;
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
  Shape out = conv_output_sizes(ctx, input.sizes(), weight.sizes(), 1);
  if (const Tensor* bias = ctx.optional_tensor(2))
    PLEXUS_CHECK_ARG(bias->dim() == 1 && bias->size(0) == out[1], ctx.name(2),
                     "conv2d expects a bias of shape [{}] (one per output channel), got {}",
                     out[1], shape_str(bias->sizes()));
  return {out, t, t};
}

// The size argument of a conv2d backward op (input_size or weight_size): four
// non-negative values.
Shape size_arg(MetaContext& ctx, size_t i, const char* what) {
  IntArrayRef v = ctx.int_list(i);
  PLEXUS_CHECK_ARG(v.size() == 4, ctx.name(i), "expected the four sizes of {}, got {}", what,
                   shape_str(v));
  for (int64_t n : v)
    PLEXUS_CHECK_ARG(n >= 0, ctx.name(i), "sizes must be non-negative, got {}", shape_str(v));
  return Shape(v.begin(), v.end());
}

// Checks grad_output (argument 0) against the result of the forward conv2d
// with these input and weight sizes, and that the two tensors share a
// floating dtype.
DType check_conv_backward(MetaContext& ctx, IntArrayRef in, IntArrayRef wt, size_t wt_arg) {
  const Tensor& grad = ctx.tensor(0);
  const Tensor& other = ctx.tensor(1);
  PLEXUS_CHECK_ARG(grad.dim() == 4, ctx.name(0),
                   "expected a 4-D grad_output [N, C_out, oH, oW], got shape {}",
                   shape_str(grad.sizes()));
  PLEXUS_CHECK_ARG(other.dim() == 4, ctx.name(1), "expected a 4-D tensor, got shape {}",
                   shape_str(other.sizes()));
  DType t = grad.dtype();
  check_dtype(ctx, 0, t, ctx.op().catalog_dtypes());
  PLEXUS_CHECK_ARG(other.dtype() == t, ctx.name(1),
                   "expected grad_output's dtype {}, got {}", dtype_name(t),
                   dtype_name(other.dtype()));
  Shape want = conv_output_sizes(ctx, in, wt, wt_arg);
  PLEXUS_CHECK_ARG(grad.sizes() == IntArrayRef(want), ctx.name(0),
                   "conv2d of input {} with weight {} has a result of shape {}, but grad_output "
                   "has shape {}",
                   shape_str(in), shape_str(wt), shape_str(want), shape_str(grad.sizes()));
  return t;
}

// conv2d_backward_input(grad_output, weight, input_size, stride, padding, dilation, groups)
OutputSpec conv2d_backward_input_meta(MetaContext& ctx) {
  Shape in = size_arg(ctx, 2, "the input");
  const Tensor& weight = ctx.tensor(1);
  PLEXUS_CHECK_ARG(weight.dim() == 4, ctx.name(1),
                   "expected a 4-D weight [C_out, C_in / groups, kH, kW], got shape {}",
                   shape_str(weight.sizes()));
  DType t = check_conv_backward(ctx, in, weight.sizes(), 1);
  return {in, t, t};
}

// conv2d_backward_weight(grad_output, input, weight_size, stride, padding, dilation, groups)
OutputSpec conv2d_backward_weight_meta(MetaContext& ctx) {
  Shape wt = size_arg(ctx, 2, "the weight");
  const Tensor& input = ctx.tensor(1);
  PLEXUS_CHECK_ARG(input.dim() == 4, ctx.name(1),
                   "expected a 4-D input [N, C, H, W], got shape {}", shape_str(input.sizes()));
  DType t = check_conv_backward(ctx, input.sizes(), wt, 2);
  return {wt, t, t};
}

// The parameters of a conv2d backward call, as the meta function left them.
struct ConvParams {
  int64_t sh, sw, ph, pw, dh, dw, groups;
};
ConvParams conv_params(const KernelCall& call) {
  IntArrayRef s = call.args[3].to_int_list(), p = call.args[4].to_int_list(),
              d = call.args[5].to_int_list();
  return {s[0], s[1], p[0], p[1], d[0], d[1], call.args[6].to_int()};
}

// The view of `x` [N, C, H, W] holding every tap of every window of a conv2d:
// [N, C, kH, kW, oH, oW], element (n, c, i, j, y, x) = x[n, c, y sh + i dh,
// x sw + j dw]. No copy.
Tensor windows(const Tensor& x, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
               const ConvParams& p) {
  IntArrayRef st = x.strides();
  return x.as_strided({x.size(0), x.size(1), kh, kw, oh, ow},
                      {st[0], st[1], p.dh * st[2], p.dw * st[3], p.sh * st[2], p.sw * st[3]},
                      x.storage_offset());
}

// conv2d_backward_input.out: per group, the columns W_g^T grad_g (one row per
// weight tap), then each tap's column added back at the input positions it
// read (col2im), in a zero-padded buffer whose interior is the result.
void conv2d_backward_input_composite(void*, KernelCall& call) {
  const Tensor& grad = call.args[0].to_tensor();
  const Tensor& weight = call.args[1].to_tensor();
  const Tensor& out = call.args[7].to_tensor();
  const ConvParams p = conv_params(call);
  const int64_t n = out.size(0), c = out.size(1), h = out.size(2), w = out.size(3);
  const int64_t o = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const int64_t oh = grad.size(2), ow = grad.size(3);
  const int64_t og = o / p.groups, cg = c / p.groups, taps = cg * kh * kw;
  // float16 and bfloat16 add up in float32 and round once, at the end.
  const DType acc = accumulate_dtype(grad.dtype());
  Tensor padded = zeros({n, c, h + 2 * p.ph, w + 2 * p.pw}, {acc, grad.device()});
  if (out.numel() > 0 && grad.numel() > 0) {
    for (int64_t g = 0; g < p.groups; ++g) {
      Tensor wg = weight.narrow(0, g * og, og).to(acc).reshape({og, taps});
      Tensor gg = grad.narrow(1, g * og, og).to(acc).reshape({n, og, oh * ow});
      Tensor cols = bmm(wg.t().unsqueeze(0).expand({n, taps, og}), gg)
                        .view({n, cg, kh, kw, oh, ow});
      Tensor pg = padded.narrow(1, g * cg, cg);
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          pg.slice(2, i * p.dh, i * p.dh + (oh - 1) * p.sh + 1, p.sh)
              .slice(3, j * p.dw, j * p.dw + (ow - 1) * p.sw + 1, p.sw)
              .add_(cols.select(2, i).select(2, j));
    }
  }
  out.copy_(padded.slice(2, p.ph, p.ph + h).slice(3, p.pw, p.pw + w));
}

// conv2d_backward_weight.out: per group, grad_g (as [C_out/g, N oH oW]) times
// the input's windows (im2col, [N oH oW, C/g kH kW]).
void conv2d_backward_weight_composite(void*, KernelCall& call) {
  const Tensor& grad = call.args[0].to_tensor();
  const Tensor& input = call.args[1].to_tensor();
  const Tensor& out = call.args[7].to_tensor();
  const ConvParams p = conv_params(call);
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t o = out.size(0), kh = out.size(2), kw = out.size(3);
  const int64_t oh = grad.size(2), ow = grad.size(3);
  const int64_t og = o / p.groups, cg = c / p.groups, taps = cg * kh * kw;
  if (grad.numel() == 0 || input.numel() == 0) {
    out.fill_(Scalar(0));
    return;
  }
  Tensor x = input;
  if (p.ph > 0 || p.pw > 0) {
    x = zeros({n, c, h + 2 * p.ph, w + 2 * p.pw}, {input.dtype(), input.device()});
    x.slice(2, p.ph, p.ph + h).slice(3, p.pw, p.pw + w).copy_(input);
  }
  Tensor all = windows(x, kh, kw, oh, ow, p);
  for (int64_t g = 0; g < p.groups; ++g) {
    Tensor cols = all.narrow(1, g * cg, cg).permute({0, 4, 5, 1, 2, 3}).reshape({n * oh * ow, taps});
    Tensor gg = grad.narrow(1, g * og, og).permute({1, 0, 2, 3}).reshape({og, n * oh * ow});
    out.narrow(0, g * og, og).copy_(mm(gg, cols).view({og, cg, kh, kw}));
  }
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
  d.define({.functional = "conv2d_backward_input(Tensor grad_output, Tensor weight, "
                          "int[] input_size, int[2] stride=1, int[2] padding=0, "
                          "int[2] dilation=1, int groups=1) -> Tensor",
            .out = "conv2d_backward_input.out(Tensor grad_output, Tensor weight, "
                   "int[] input_size, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
                   "int groups=1, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = conv2d_backward_input_meta,
            .composite = conv2d_backward_input_composite,
            .dtypes = kFloatTypes});
  d.define({.functional = "conv2d_backward_weight(Tensor grad_output, Tensor input, "
                          "int[] weight_size, int[2] stride=1, int[2] padding=0, "
                          "int[2] dilation=1, int groups=1) -> Tensor",
            .out = "conv2d_backward_weight.out(Tensor grad_output, Tensor input, "
                   "int[] weight_size, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
                   "int groups=1, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = conv2d_backward_weight_meta,
            .composite = conv2d_backward_weight_composite,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
