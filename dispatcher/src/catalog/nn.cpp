// Neural-network ops: softmax, log_softmax, layer_norm, conv2d, max_pool2d,
// embedding (kernels) and mse_loss (composite).
//
// What the kernels receive:
// - softmax/log_softmax: self in the compute dtype; dim wrapped to [0, ndim)
//   (0 for a 0-d self, which counts as one element).
// - layer_norm: input in the compute dtype; normalized_shape equal to input's
//   trailing dims; weight and bias None or of shape normalized_shape in the
//   compute dtype.
// - conv2d: 4-D input [N, C, H, W], weight [C_out, C / groups, kH, kW] and bias
//   (None or [C_out]) in one dtype; stride, padding and dilation as two values.
// - max_pool2d: 4-D self; kernel_size, stride (filled from kernel_size when
//   empty), padding and dilation as two values each.
// - embedding: weight [num, dim] in its dtype (the compute dtype); indices as
//   given, int32 or int64 (the kernel checks their values are in range).
// The C++ API (plexus::conv2d, plexus::max_pool2d) also takes unbatched 3-D
// input: it adds the batch dim around the call.
#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// softmax.int / log_softmax.int: floating only; dtype, when given, is both the
// compute and the result dtype.
OutputSpec softmax_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  std::optional<DType> given = ctx.optional_dtype(2);
  DType t = given.value_or(self.dtype());
  PLEXUS_CHECK_ARG(is_floating(t), ctx.name(given ? 2 : 0),
                   "{} needs a floating tensor or a floating dtype, got {}; pass "
                   "dtype=float32 or convert the input",
                   ctx.op().schema().name, dtype_name(t));
  check_dtype(ctx, given ? 2 : 0, t, ctx.op().catalog_dtypes());
  int64_t dim = naming_argument(ctx.name(1), [&] { return wrap_dim(ctx.integer(1), self.dim()); });
  ctx.set_value(1, Value::integer(dim));
  prepare_input(ctx, 0, t);
  return {Shape(self.sizes().begin(), self.sizes().end()), t, t};
}

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

// An int[2] argument given as one or two values; each must be at least `min`.
// The kernel gets two values.
std::array<int64_t, 2> pair_arg(MetaContext& ctx, size_t i, int64_t min, const char* rule) {
  IntArrayRef v = ctx.int_list(i);
  PLEXUS_CHECK_ARG(v.size() == 1 || v.size() == 2, ctx.name(i),
                   "expected one or two values (height, width), got {}", shape_str(v));
  std::array<int64_t, 2> p{v[0], v.back()};
  PLEXUS_CHECK_ARG(p[0] >= min && p[1] >= min, ctx.name(i), "must be {}, got {}", rule,
                   shape_str(v));
  ctx.set_int_list(i, {p[0], p[1]});
  return p;
}

// A sliding window along one dim: the padded input length and the dilated
// window length. Throws naming `arg` when either overflows.
struct Window {
  int64_t padded;  // input + 2 * padding
  int64_t span;    // dilation * (kernel - 1) + 1
};
Window window(MetaContext& ctx, size_t arg, int64_t in, int64_t k, int64_t p, int64_t d) {
  Window w{};
  bool overflow =
      __builtin_mul_overflow(p, 2, &w.padded) || __builtin_add_overflow(w.padded, in, &w.padded) ||
      __builtin_mul_overflow(d, k - 1, &w.span) || __builtin_add_overflow(w.span, 1, &w.span);
  PLEXUS_CHECK_ARG(!overflow, ctx.name(arg), "window sizes overflow int64");
  return w;
}

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

// Floor division for a possibly negative numerator and a positive divisor.
int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

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

// mse_loss(self, target, reduction): mean, sum or none of (self - target)^2.
void mse_loss_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  const Tensor& target = call.args[1].to_tensor();
  int64_t reduction = call.args[2].to_int();
  PLEXUS_CHECK_ARG(reduction >= 0 && reduction <= 2, "reduction",
                   "must be 0 (none), 1 (mean) or 2 (sum), got {}", reduction);
  DType t = promote_types(self.dtype(), target.dtype());
  PLEXUS_CHECK_ARG(is_floating(t), "self", "mse_loss needs floating tensors, got {} and {}",
                   dtype_name(self.dtype()), dtype_name(target.dtype()));
  naming_argument("target", [&] { return broadcast_shapes(self.sizes(), target.sizes()); });
  Tensor diff = sub(self, target);
  Tensor sq = mul(diff, diff);
  call.result = reduction == 0 ? sq : reduction == 1 ? mean(sq) : sum(sq);
}

}  // namespace

void define_nn_ops(Dispatcher& d) {
  d.define({.functional = "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            .out = "softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = softmax_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            .out = "log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = softmax_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                          "Tensor? bias=None, float eps=1e-05) -> Tensor",
            .out = "layer_norm.out(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = layer_norm_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                          "int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) "
                          "-> Tensor",
            .out = "conv2d.out(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
                   "int[2] padding=0, int[2] dilation=1, int groups=1, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = conv2d_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                          "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
            .out = "max_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], "
                   "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = max_pool2d_meta,
            .dtypes = kFloatTypes});
  d.define({.functional = "embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
                          "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
            .out = "embedding.out(Tensor weight, Tensor indices, int padding_idx=-1, "
                   "bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = embedding_meta,
            .dtypes = kAllTypes});
  d.define_direct("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                  mse_loss_composite);
}

}  // namespace plexus
