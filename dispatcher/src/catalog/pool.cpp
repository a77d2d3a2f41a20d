// max_pool2d and its backward op.
//
// What the kernel receives: 4-D self; kernel_size, stride (filled from
// kernel_size when empty), padding and dilation as two values each. The C++ API
// (plexus::max_pool2d) also takes unbatched 3-D input.
//
// max_pool2d_backward(grad_output, self, <the forward's window arguments>) is
// the gradient of max_pool2d's result with respect to self: each window's
// gradient goes to the position of the window's maximum (the first one in
// row-major order on ties, a NaN before any number; a window of -inf values
// gives it to its first tap inside the input), and positions shared by
// windows add up. It finds the maxima again from self rather than taking
// indices saved by the forward (as cuDNN's pooling backward does), so the
// forward stays a one-result op and keeps no int64 index tensor alive. Its
// composite default is written in catalog ops (argmax over a strided view of
// the windows); plugins may register native kernels.
#include <algorithm>
#include <limits>

#include "catalog/catalog.h"
#include "plexus/factories.h"
#include "catalog/window.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

using catalog::pair_arg;
using catalog::window;
using catalog::Window;
using catalog::floor_div;

// The output sizes of a max_pool2d of a self of sizes `in`, whose window
// arguments start at `first` (kernel_size, stride, padding, dilation,
// ceil_mode); fills an empty stride from kernel_size.
Shape pool_output_sizes(MetaContext& ctx, IntArrayRef in, size_t first, size_t self_arg) {
  auto kernel = pair_arg(ctx, first, 1, "positive");
  if (ctx.int_list(first + 1).empty()) ctx.set_int_list(first + 1, {kernel[0], kernel[1]});
  auto stride = pair_arg(ctx, first + 1, 1, "positive");
  auto padding = pair_arg(ctx, first + 2, 0, "non-negative");
  auto dilation = pair_arg(ctx, first + 3, 1, "positive");
  bool ceil_mode = ctx.boolean(first + 4);
  Shape out{in[0], in[1]};
  for (int s = 0; s < 2; ++s) {
    PLEXUS_CHECK_ARG(padding[s] <= kernel[s] / 2, ctx.name(first + 2),
                     "padding {} must be at most half the kernel size {}", shape_str(padding),
                     shape_str(kernel));
    Window w = window(ctx, first + 2, in[2 + s], kernel[s], padding[s], dilation[s]);
    int64_t rest = w.padded - w.span + (ceil_mode ? stride[s] - 1 : 0);
    int64_t n = floor_div(rest, stride[s]) + 1;
    // With ceil_mode the last window must start inside the input or left padding.
    if (ceil_mode && n > 0 && (n - 1) * stride[s] >= in[2 + s] + padding[s]) --n;
    PLEXUS_CHECK_ARG(n > 0, ctx.name(self_arg),
                     "max_pool2d of input of shape {} with kernel {}, stride {}, padding {} and "
                     "dilation {} has no output in {}",
                     shape_str(in), shape_str(kernel), shape_str(stride), shape_str(padding),
                     shape_str(dilation), s == 0 ? "height" : "width");
    out.push_back(n);
  }
  return out;
}

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)
OutputSpec max_pool2d_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  PLEXUS_CHECK_ARG(self.dim() == 4, ctx.name(0),
                   "max_pool2d expects a 4-D input [N, C, H, W], got shape {}",
                   shape_str(self.sizes()));
  check_dtype(ctx, 0, self.dtype(), ctx.op().catalog_dtypes());
  return {pool_output_sizes(ctx, self.sizes(), 1, 0), self.dtype(), self.dtype()};
}

// max_pool2d_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode)
OutputSpec max_pool2d_backward_meta(MetaContext& ctx) {
  const Tensor& grad = ctx.tensor(0);
  const Tensor& self = ctx.tensor(1);
  PLEXUS_CHECK_ARG(self.dim() == 4, ctx.name(1),
                   "max_pool2d_backward expects a 4-D self [N, C, H, W], got shape {}",
                   shape_str(self.sizes()));
  check_dtype(ctx, 1, self.dtype(), ctx.op().catalog_dtypes());
  PLEXUS_CHECK_ARG(grad.dtype() == self.dtype(), ctx.name(0), "expected self's dtype {}, got {}",
                   dtype_name(self.dtype()), dtype_name(grad.dtype()));
  Shape want = pool_output_sizes(ctx, self.sizes(), 2, 1);
  PLEXUS_CHECK_ARG(grad.sizes() == IntArrayRef(want), ctx.name(0),
                   "max_pool2d of self of shape {} has a result of shape {}, but grad_output has "
                   "shape {}",
                   shape_str(self.sizes()), shape_str(want), shape_str(grad.sizes()));
  return {Shape(self.sizes().begin(), self.sizes().end()), self.dtype(), self.dtype()};
}

// max_pool2d_backward.out: self in a buffer padded with -inf (wide enough for
// ceil_mode's last windows), the argmax of every window through a strided
// view, the gradient placed at that tap, and every tap added back where it
// was read.
void max_pool2d_backward_composite(void*, KernelCall& call) {
  const Tensor& grad = call.args[0].to_tensor();
  const Tensor& self = call.args[1].to_tensor();
  const Tensor& out = call.args[7].to_tensor();
  IntArrayRef k = call.args[2].to_int_list(), st = call.args[3].to_int_list(),
              pd = call.args[4].to_int_list(), dl = call.args[5].to_int_list();
  const int64_t n = self.size(0), c = self.size(1), h = self.size(2), w = self.size(3);
  const int64_t oh = grad.size(2), ow = grad.size(3);
  if (out.numel() == 0) return;
  const TensorOptions opts{self.dtype(), self.device()};
  const int64_t hp = std::max(h + 2 * pd[0], (oh - 1) * st[0] + (k[0] - 1) * dl[0] + 1);
  const int64_t wp = std::max(w + 2 * pd[1], (ow - 1) * st[1] + (k[1] - 1) * dl[1] + 1);
  Tensor padded = full({n, c, hp, wp}, Scalar(-std::numeric_limits<double>::infinity()), opts);
  padded.slice(2, pd[0], pd[0] + h).slice(3, pd[1], pd[1] + w).copy_(self);
  // The taps of every window, [n, c, oh, ow, kh * kw], through a strided view.
  auto windows = [&](const Tensor& t) {
    IntArrayRef ps = t.strides();
    return t.as_strided({t.size(0), t.size(1), oh, ow, k[0], k[1]},
                        {ps[0], ps[1], st[0] * ps[2], st[1] * ps[3], dl[0] * ps[2], dl[1] * ps[3]},
                        t.storage_offset())
        .reshape({t.size(0), t.size(1), oh, ow, k[0] * k[1]});
  };
  Tensor taps = windows(padded);
  Tensor best = argmax(taps, -1, true);
  // A window of -inf values only: its first tap inside the input (argmax
  // could pick padding, which ties with them).
  Tensor inside = zeros({1, 1, hp, wp}, TensorOptions(DType::F32, self.device()));
  inside.slice(2, pd[0], pd[0] + h).slice(3, pd[1], pd[1] + w).fill_(Scalar(1));
  Tensor first_inside = argmax(windows(inside), -1, true);
  Tensor all_neg_inf = eq(amax(taps, {-1}, true),
                          Scalar(-std::numeric_limits<double>::infinity()));
  best = where(all_neg_inf, first_inside, best);
  Tensor at = eq(arange(0, k[0] * k[1], 1, TensorOptions(DType::I64, self.device())), best);
  // float16 and bfloat16 add up in float32 and round once, at the end.
  const DType sum_type = accumulate_dtype(self.dtype());
  Tensor spread = where(at, grad.to(sum_type).unsqueeze(-1), Scalar(0))
                      .view({n, c, oh, ow, k[0], k[1]});
  Tensor acc = zeros({n, c, hp, wp}, TensorOptions(sum_type, self.device()));
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j)
      acc.slice(2, i * dl[0], i * dl[0] + (oh - 1) * st[0] + 1, st[0])
          .slice(3, j * dl[1], j * dl[1] + (ow - 1) * st[1] + 1, st[1])
          .add_(spread.select(4, i).select(4, j));
  out.copy_(acc.slice(2, pd[0], pd[0] + h).slice(3, pd[1], pd[1] + w));
}

}  // namespace

void define_pool_ops(Dispatcher& d) {
  d.define({.functional = "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                          "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
            .out = "max_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], "
                   "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = max_pool2d_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "max_pool2d_backward(Tensor grad_output, Tensor self, "
                          "int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                          "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
            .out = "max_pool2d_backward.out(Tensor grad_output, Tensor self, "
                   "int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
                   "bool ceil_mode=False, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = max_pool2d_backward_meta,
            .composite = max_pool2d_backward_composite,
            .dtypes = kFloatTypes});
}

}  // namespace plexus
