// Reductions: sum, mean, amax, amin, argmax, argmin.
//
// What the kernels receive (after the meta functions below):
// - sum/mean/amax/amin: self in the compute dtype with its own shape; `dim` as
//   the dims of self to reduce, wrapped, ascending and distinct (None and []
//   arrive as every dim; a 0-d self arrives with [] and reduces its one
//   element); keepdim as given; out with the reduced shape.
// - argmax/argmin: self in its own dtype; `dim` either None (the index of the
//   extreme among all elements in row-major order; out has one element) or a
//   wrapped dim of a self with at least one dim. A 0-d self arrives with None.
#include <fmt/format.h>

#include "catalog/catalog.h"

namespace plexus {
namespace {

// Argument positions shared by every reduction's schema.
constexpr size_t kSelf = 0, kDim = 1, kKeepdim = 2, kDtype = 3;

// The dims of self named by `dims` (None or [] meaning all), wrapped, ascending
// and distinct; throws naming the dim argument on a bad or repeated dim.
std::vector<int64_t> reduced_dims(MetaContext& ctx, std::optional<IntArrayRef> dims, int64_t ndim) {
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)));
  for (int64_t d : *dims) {
    int64_t w = naming_argument(ctx.name(kDim), [&] { return wrap_dim(d, ndim); });
    PLEXUS_CHECK_ARG(!seen[w], ctx.name(kDim), "dim {} appears more than once in {}", w,
                     shape_str(*dims));
    seen[w] = true;
  }
  for (int64_t d = 0; d < ndim; ++d)
    if (seen[d]) out.push_back(d);
  return out;  // a 0-d self: [] (its one element)
}

// self's shape with `dims` removed, or set to 1 when keepdim.
Shape reduced_shape(IntArrayRef sizes, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

// Normalizes dim for the kernel and returns the output shape.
Shape reduce_dims_meta(MetaContext& ctx, std::vector<int64_t>& dims) {
  const Tensor& self = ctx.tensor(kSelf);
  dims = reduced_dims(ctx, ctx.optional_int_list(kDim), self.dim());
  Shape shape = reduced_shape(self.sizes(), dims, ctx.boolean(kKeepdim));
  ctx.set_int_list(kDim, dims);
  return shape;
}

// sum.dim_IntList: integral and bool inputs sum to int64 unless dtype is given.
OutputSpec sum_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(kSelf);
  std::optional<DType> given = ctx.optional_dtype(kDtype);
  DType dtype = given ? *given : is_floating(self.dtype()) ? self.dtype() : DType::I64;
  check_dtype(ctx, given ? kDtype : kSelf, dtype, ctx.op().catalog_dtypes());
  std::vector<int64_t> dims;
  Shape shape = reduce_dims_meta(ctx, dims);
  prepare_input(ctx, kSelf, dtype);
  return {shape, dtype, dtype};
}

// mean.dim: floating only; an integral input needs a floating dtype.
OutputSpec mean_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(kSelf);
  std::optional<DType> given = ctx.optional_dtype(kDtype);
  if (!given && !is_floating(self.dtype()))
    fail_arg(ctx.name(kSelf),
             "mean needs a floating tensor or a floating dtype, got {} input and no dtype; "
             "pass dtype=float32 or convert the input",
             dtype_name(self.dtype()));
  DType dtype = given.value_or(self.dtype());
  check_dtype(ctx, given ? kDtype : kSelf, dtype, ctx.op().catalog_dtypes());
  std::vector<int64_t> dims;
  Shape shape = reduce_dims_meta(ctx, dims);
  prepare_input(ctx, kSelf, dtype);
  return {shape, dtype, dtype};
}

// An extreme of no elements is undefined: every reduced dim must be non-empty.
void check_nonempty(MetaContext& ctx, const Tensor& self, const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    PLEXUS_CHECK_ARG(self.size(d) > 0, ctx.name(kSelf),
                     "{} cannot reduce dim {} of size 0 (shape {}): the result would have no "
                     "value; pass a dim that is not empty",
                     ctx.op().schema().name, d, shape_str(self.sizes()));
}

// amax/amin: the result keeps self's dtype.
OutputSpec extreme_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(kSelf);
  check_dtype(ctx, kSelf, self.dtype(), ctx.op().catalog_dtypes());
  std::vector<int64_t> dims;
  Shape shape = reduce_dims_meta(ctx, dims);
  check_nonempty(ctx, self, dims);
  return {shape, self.dtype(), self.dtype()};
}

// argmax/argmin: int64 indices; dim None flattens self.
OutputSpec arg_extreme_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(kSelf);
  check_dtype(ctx, kSelf, self.dtype(), ctx.op().catalog_dtypes());
  std::optional<int64_t> dim = ctx.optional_integer(kDim);
  bool keepdim = ctx.boolean(kKeepdim);
  std::vector<int64_t> dims;
  if (dim) {
    int64_t w = naming_argument(ctx.name(kDim), [&] { return wrap_dim(*dim, self.dim()); });
    if (self.dim() > 0) dims.push_back(w);
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  check_nonempty(ctx, self, dims);
  Shape shape;
  if (dim)
    shape = reduced_shape(self.sizes(), dims, keepdim);
  else if (keepdim)
    shape.assign(static_cast<size_t>(self.dim()), 1);
  ctx.set_value(kDim, dim && self.dim() > 0 ? Value::integer(dims[0]) : Value());
  return {shape, DType::I64, self.dtype()};
}

}  // namespace

void define_reduce_ops(Dispatcher& d) {
  d.define({.functional = "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
                          "ScalarType? dtype=None) -> Tensor",
            .out = "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, "
                   "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
            .meta = sum_meta,
            .dtypes = kNumericTypes});
  d.define({.functional = "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
                          "ScalarType? dtype=None) -> Tensor",
            .out = "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, "
                   "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
            .meta = mean_meta,
            .dtypes = kFloatTypes});
  for (const char* name : {"amax", "amin"}) {
    std::string fn =
        fmt::format("{}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", name);
    std::string out = fmt::format(
        "{}.out(Tensor self, int[1] dim=[], bool keepdim=False, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        name);
    d.define({.functional = fn, .out = out, .meta = extreme_meta, .dtypes = kAllTypes});
  }
  for (const char* name : {"argmax", "argmin"}) {
    std::string fn =
        fmt::format("{}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", name);
    std::string out = fmt::format(
        "{}.out(Tensor self, int? dim=None, bool keepdim=False, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        name);
    d.define({.functional = fn, .out = out, .meta = arg_extreme_meta, .dtypes = kNumericTypes});
  }
}

}  // namespace plexus
