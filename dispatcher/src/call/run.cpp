// The backend step of a call: meta function, output, then a kernel, the
// op's composite, or the fallback policy.
#include <fmt/format.h>

#include <cstring>
#include <new>

#include "call/args.h"
#include "call/fallback.h"
#include "call/state.h"
#include "call/output.h"
#include "call/overlap.h"
#include "plexus/device_backend.h"
#include "plexus/factories.h"
#include "plexus/log.h"
#include "plexus/meta.h"
#include "call/transfer.h"

namespace plexus {
namespace {

// Kernel, then composite, then fallback policy.
Tensor run_kernel(Dispatcher::State& st, const Operator& kop, KernelFn composite, Device device,
                  DType dtype, std::span<const Value> kargs) {
  const KernelEntry* k = kop.kernel(device.type);
  if (k && k->dtypes.contains(dtype)) [[likely]] {
    KernelCall call{kop, kargs, device, dtype, {}};
    try {
      k->fn(k->ctx, call);
    } catch (const Error& e) {
      throw e.with_context({kop.name(), "", std::string(device_type_name(device.type)),
                            device.str()});
    }
    return call.result;
  }
  if (composite) {
    KernelCall call{kop, kargs, device, dtype, {}};
    composite(nullptr, call);
    if (!call.declined) return call.result;
  }
  if (device.is_cpu() || st.fallback.load(std::memory_order_relaxed) == FallbackPolicy::Error)
    no_kernel(kop, device, dtype, false);
  return run_on_cpu(st, kop, device, dtype, kargs);
}

Tensor run_direct(Dispatcher::State& st, const Operator& op, Device device,
                  std::span<const Value> args) {
  DType dtype = DType::F32;  // kernels of ops without tensors are looked up as float32
  for (const Value& v : args)
    if (v.is_tensor()) {
      dtype = v.to_tensor().dtype();
      break;
    }
  return run_kernel(st, op, op.composite(), device, dtype, args);
}

}  // namespace

Tensor run_backend(Dispatcher::State& st, const Operator& op, Device device,
                   std::span<const Value> args_in) {
  if (op.kind() == OpKind::Direct) return run_direct(st, op, device, args_in);

  Args args(args_in);

  const Operator& kop = op.kernel_op();
  bool own_kernel = &kop == &op && op.kind() == OpKind::Inplace;  // fill_, copy_
  size_t nmeta = op.kind() == OpKind::Out ? args.size() - 1 : args.size();
  MetaContext ctx(op, std::span(args.data(), nmeta), device);
  OutputSpec spec = op.meta()(ctx);
  // Scalar-like 0-d cpu tensors join calls on other devices as device tensors
  // (prepare_input moves those it converts; this moves the rest).
  if (!device.is_cpu() && !op.cross_device())
    for (size_t i = 0; i < nmeta; ++i)
      if (args[i].is_tensor() && args[i].to_tensor().device() != device)
        move_to_call_device(ctx, i);

  Tensor fresh;  // the output of a functional call, or the distinct elements of an idempotent one
  if (op.kind() == OpKind::Functional) fresh = empty(spec.sizes, {spec.dtype, device});
  const Tensor& given = op.kind() == OpKind::Functional ? fresh : args_in[op.written_arg()].to_tensor();
  if (op.kind() != OpKind::Functional) {
    check_written(op, given, spec, device, op.idempotent());
    given.storage()->bump_version(op.name().c_str());  // autograd's saved-tensor check
  }
  if (op.kind() != OpKind::Functional && op.idempotent()) {
    fresh = distinct_elements(given);
    spec.sizes.assign(fresh.sizes().begin(), fresh.sizes().end());
  }
  const Tensor& out = fresh.defined() ? fresh : given;

  // Cross-device copy_: bytes move through the host with raw copies.
  if (op.cross_device()) {
    const Tensor& src = args[1].to_tensor();
    if (src.device() != device) {
      if (overlap(out, src) != Overlap::None) fail(ErrorCode::Internal, "cross-device overlap");
      cross_device_copy(out, src);
      return out;
    }
  }

  bool temp = op.kind() != OpKind::Functional &&
              needs_temporary(op, out, std::span(args_in.data(), nmeta),
                              op.kind() == OpKind::Inplace ? 0 : SIZE_MAX);
  Tensor temporary;
  if (temp || out.dtype() != spec.dtype) temporary = empty(spec.sizes, {spec.dtype, device});
  const Tensor& target = temporary.defined() ? temporary : out;
  if (own_kernel) {
    args[op.written_arg()] = Value::tensor(target);
  } else {
    args.resize(nmeta);
    args.push_back(Value::tensor(target));
  }
  run_kernel(st, kop, op.composite(), device, spec.compute_dtype,
             args.span());
  if (temporary.defined()) out.copy_(temporary);
  return given;
}

}  // namespace plexus
