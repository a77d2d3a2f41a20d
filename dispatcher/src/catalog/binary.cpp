// Binary arithmetic: add, sub, mul, div, pow, maximum, minimum.
#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

OutputSpec add_meta(MetaContext& ctx) {
  OutputSpec spec = elementwise_meta(ctx, {0, 1});
  check_scalar_fits(ctx, 2, spec.compute_dtype);
  return spec;
}

// Subtraction is not defined for bool (PyTorch's sub_check); the message
// points to the logical op the caller most likely wants.
void check_sub_not_bool(MetaContext& ctx) {
  bool self_bool = ctx.tensor(0).dtype() == DType::Bool;
  bool other_bool = ctx.tensor(1).dtype() == DType::Bool;
  if (self_bool && other_bool)
    fail_arg(ctx.name(0),
             "subtracting two bool tensors is not supported; use logical_xor() "
             "(the ^ operator) instead");
  if (self_bool || other_bool)
    fail_arg(ctx.name(self_bool ? 0 : 1),
             "subtraction with a bool tensor is not supported; to invert a mask use "
             "logical_not() (the ~ operator) instead");
}

OutputSpec sub_meta(MetaContext& ctx) {
  check_sub_not_bool(ctx);
  return add_meta(ctx);
}

// Both tensors promoted and broadcast (mul, pow, maximum, minimum).
OutputSpec binary_meta(MetaContext& ctx) {
  return elementwise_meta(ctx, {0, 1});
}

// True division: integers and bool divide as float32.
OutputSpec div_meta(MetaContext& ctx) {
  return elementwise_meta(ctx, {0, 1}, ResultRule::IntToFloat);
}

// rounding_mode None is true division; 'trunc' and 'floor' keep the promoted dtype.
OutputSpec div_mode_meta(MetaContext& ctx) {
  std::optional<std::string_view> mode = ctx.optional_string(2);
  if (!mode) return div_meta(ctx);
  if (*mode != "trunc" && *mode != "floor")
    fail_arg(ctx.name(2), "must be None, 'trunc' or 'floor', got '{}'", *mode);
  return elementwise_meta(ctx, {0, 1});
}

// The exponent takes part in promotion as a Python scalar would.
OutputSpec pow_scalar_meta(MetaContext& ctx) {
  OutputSpec spec = elementwise_meta_with_scalars(ctx, {0}, {1});
  Scalar e = ctx.scalar(1);
  if (!is_floating(spec.compute_dtype) && e.is_integral() && e.to_int() < 0)
    fail_arg(ctx.name(1),
             "integers to negative integer powers are not allowed (got {} for a "
             "{} base); convert the base to a floating dtype first",
             e.str(), dtype_name(spec.compute_dtype));
  return spec;
}

// sub.out(self, other, alpha, out) as add.out with -alpha.
void sub_composite(void*, KernelCall& call) {
  Scalar alpha = call.args[2].to_scalar();
  Scalar neg_alpha = alpha.is_floating() ? Scalar(-alpha.to_double()) : Scalar(-alpha.to_int());
  add_out(call.args[3].to_tensor(), call.args[0].to_tensor(), call.args[1].to_tensor(), neg_alpha);
}

}  // namespace

void define_binary_ops(Dispatcher& d) {
  d.define(
      {.functional = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       .inplace = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
       .out = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
              "Tensor(a!)",
       .meta = add_meta,
       .dtypes = kAllTypes,
       .elementwise = true});
  d.define(
      {.functional = "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       .inplace = "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
       .out = "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
              "Tensor(a!)",
       .meta = sub_meta,
       .composite = sub_composite,
       .dtypes = kNumericTypes,
       .elementwise = true});
  d.define({.functional = "mul.Tensor(Tensor self, Tensor other) -> Tensor",
            .inplace = "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            .out = "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = binary_meta,
            .dtypes = kAllTypes,
            .elementwise = true});
  d.define({.functional = "div.Tensor(Tensor self, Tensor other) -> Tensor",
            .inplace = "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            .out = "div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = div_meta,
            .dtypes = kFloatTypes,
            .elementwise = true});
  d.define(
      {.functional = "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
       .inplace = "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) "
                  "-> Tensor(a!)",
       .out = "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, "
              "Tensor(a!) out) -> Tensor(a!)",
       .meta = div_mode_meta,
       .dtypes = kNumericTypes,
       .elementwise = true});
  d.define({.functional = "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
            .inplace = "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
            .out = "pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = binary_meta,
            .dtypes = kNumericTypes,
            .elementwise = true});
  d.define({.functional = "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
            .inplace = "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
            .out = "pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = pow_scalar_meta,
            .dtypes = kNumericTypes,
            .elementwise = true});
  d.define({.functional = "maximum(Tensor self, Tensor other) -> Tensor",
            .out = "maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = binary_meta,
            .dtypes = kAllTypes,
            .elementwise = true});
  d.define({.functional = "minimum(Tensor self, Tensor other) -> Tensor",
            .out = "minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            .meta = binary_meta,
            .dtypes = kAllTypes,
            .elementwise = true});
}

}  // namespace plexus
