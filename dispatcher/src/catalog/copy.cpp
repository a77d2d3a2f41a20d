// copy_, fill_ and to: moving and converting values.
#include "catalog/catalog.h"
#include "plexus/factories.h"

namespace plexus {
namespace {

// copy_(self, src): src broadcasts to self's shape; any dtype to any dtype.
OutputSpec copy_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  const Tensor& src = ctx.tensor(1);
  try {
    Shape b = broadcast_shapes(self.sizes(), src.sizes());
    PLEXUS_CHECK(std::equal(b.begin(), b.end(), self.sizes().begin(), self.sizes().end()),
                 ErrorCode::InvalidArgument, "src of shape {} does not broadcast to self's {}",
                 shape_str(src.sizes()), shape_str(self.sizes()));
  } catch (const Error& e) {
    throw e.with_context({"", "src", "", ""});
  }
  if (src.dim() != self.dim() ||
      !std::equal(src.sizes().begin(), src.sizes().end(), self.sizes().begin()))
    ctx.set_tensor(1, src.expand(self.sizes()));
  return {Shape(self.sizes().begin(), self.sizes().end()), self.dtype(), self.dtype()};
}

// fill_(self, value)
OutputSpec fill_meta(MetaContext& ctx) {
  const Tensor& self = ctx.tensor(0);
  Scalar v = ctx.scalar(1);
  if (v.is_floating() && !is_floating(self.dtype()))
    fail_arg("value", "cannot fill a {} tensor with the floating value {}",
             dtype_name(self.dtype()), v.str());
  return {Shape(self.sizes().begin(), self.sizes().end()), self.dtype(), self.dtype()};
}

// to.dtype / to.device / to.dtype_layout: a new tensor unless nothing changes.
void to_composite(void*, KernelCall& call) {
  const Tensor& self = call.args[0].to_tensor();
  Device device = self.device();
  DType dtype = self.dtype();
  bool copy = false;
  for (size_t i = 1; i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    const std::string& name = call.op.schema().arguments[i].name;
    if (v.tag() == Value::Tag::Device) device = v.to_device();
    else if (v.tag() == Value::Tag::DType) dtype = v.to_dtype();
    else if (name == "copy") copy = v.to_bool();
  }
  if (!copy && device == self.device() && dtype == self.dtype()) {
    call.result = self;
    return;
  }
  call.result = empty(self.sizes(), {dtype, device});
  call.result.copy_(self);
}

}  // namespace

void define_copy_ops(Dispatcher& d) {
  d.define({.inplace = "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
            .meta = copy_meta,
            .dtypes = kAllTypes,
            .elementwise = true,
            .cross_device = true});
  d.define({.inplace = "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
            .meta = fill_meta,
            .dtypes = kAllTypes,
            .elementwise = true,
            .idempotent = true});
  d.define_direct(
      "to.dtype(Tensor self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor",
      to_composite);
  d.define_direct(
      "to.device(Tensor self, Device device, ScalarType dtype, bool non_blocking=False, "
      "bool copy=False) -> Tensor",
      to_composite);
}

}  // namespace plexus
