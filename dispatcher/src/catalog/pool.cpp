// max_pool2d.
//
// What the kernel receives: 4-D self; kernel_size, stride (filled from
// kernel_size when empty), padding and dilation as two values each. The C++ API
// (plexus::max_pool2d) also takes unbatched 3-D input.
#include "catalog/catalog.h"
#include "catalog/window.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

using catalog::pair_arg;
using catalog::window;
using catalog::Window;
using catalog::floor_div;

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)
OutputSpec max_pool2d_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  PLEXUS_CHECK_ARG(self.dim() == 4, ctx.name(0),
                   "max_pool2d expects a 4-D input [N, C, H, W], got shape {}",
                   shape_str(self.sizes()));
  check_dtype(ctx, 0, self.dtype(), ctx.op().catalog_dtypes());
  auto kernel = pair_arg(ctx, 1, 1, "positive");
  if (ctx.int_list(2).empty()) ctx.set_int_list(2, {kernel[0], kernel[1]});
  auto stride = pair_arg(ctx, 2, 1, "positive");
  auto padding = pair_arg(ctx, 3, 0, "non-negative");
  auto dilation = pair_arg(ctx, 4, 1, "positive");
  bool ceil_mode = ctx.boolean(5);
  Shape out{self.size(0), self.size(1)};
  for (int s = 0; s < 2; ++s) {
    PLEXUS_CHECK_ARG(padding[s] <= kernel[s] / 2, ctx.name(3),
                     "padding {} must be at most half the kernel size {}", shape_str(padding),
                     shape_str(kernel));
    Window w = window(ctx, 3, self.size(2 + s), kernel[s], padding[s], dilation[s]);
    int64_t rest = w.padded - w.span + (ceil_mode ? stride[s] - 1 : 0);
    int64_t n = floor_div(rest, stride[s]) + 1;
    // With ceil_mode the last window must start inside the input or left padding.
    if (ceil_mode && n > 0 && (n - 1) * stride[s] >= self.size(2 + s) + padding[s]) --n;
    PLEXUS_CHECK_ARG(n > 0, ctx.name(0),
                     "max_pool2d of input of shape {} with kernel {}, stride {}, padding {} and "
                     "dilation {} has no output in {}",
                     shape_str(self.sizes()), shape_str(kernel), shape_str(stride),
                     shape_str(padding), shape_str(dilation), s == 0 ? "height" : "width");
    out.push_back(n);
  }
  return {out, self.dtype(), self.dtype()};
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
}

}  // namespace plexus
