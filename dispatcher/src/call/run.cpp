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

thread_local bool t_meta_only = false;

// Whether any tensor argument other than the written ones is read.
bool reads_tensors(const Operator& op, std::span<const Value> args) {
  const auto& schema = op.schema().arguments;
  for (size_t i = 0; i < args.size() && i < schema.size(); ++i) {
    if (schema[i].alias && schema[i].alias->is_write) continue;
    if (args[i].is_tensor()) return true;
    if (args[i].tag() == Value::Tag::TensorList && !args[i].to_tensor_list().empty()) return true;
  }
  return false;
}

// Kernel, then composite, then fallback policy; each may decline the call.
Tensor run_kernel(Dispatcher::State& st, const Operator& kop, KernelFn composite, Device device,
                  DType dtype, std::span<const Value> kargs) {
  const KernelEntry* k = kop.kernel(device.type);
  Missing why;
  if (k && k->dtypes.contains(dtype)) [[likely]] {
    KernelCall call{kop, kargs, device, dtype, {}};
    try {
      k->fn(k->ctx, call);
    } catch (const Error& e) {
      throw e.with_context({kop.name(), "", std::string(device_type_name(device.type)),
                            device.str()});
    }
    if (!call.declined) [[likely]] return call.result;
    why = {true, std::move(call.declined_because)};
  }
  if (composite) {
    KernelCall call{kop, kargs, device, dtype, {}};
    composite(nullptr, call);
    if (!call.declined) return call.result;
  }
  if (device.is_cpu() || st.fallback.load(std::memory_order_relaxed) == FallbackPolicy::Error)
    no_kernel(kop, device, dtype, false, why);
  return run_on_cpu(st, kop, device, dtype, kargs, why);
}

// The dtype a direct op's kernels are looked up by: its first tensor's, in a
// list or not; float32 for ops without tensors.
DType first_dtype(std::span<const Value> args) {
  for (const Value& v : args) {
    if (v.is_tensor()) return v.to_tensor().dtype();
    if (v.tag() == Value::Tag::TensorList && !v.to_tensor_list().empty())
      return v.to_tensor_list().front().dtype();
  }
  return DType::F32;
}

// A direct op with a check (Note [Ops that write several tensors]): the check
// runs first, every written tensor's version moves on, then its kernel or
// composite runs; a check that declines the kernels runs the composite.
Tensor run_checked(Dispatcher::State& st, const Operator& op, Device device,
                   std::span<const Value> args_in) {
  Args args(args_in);
  MetaContext ctx(op, std::span(args.data(), args.size()), device);
  std::optional<DType> dtype = op.check()(ctx);
  const auto& schema_args = op.schema().arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!schema_args[i].alias || !schema_args[i].alias->is_write) continue;
    if (args[i].is_tensor()) args[i].to_tensor().storage()->bump_version(op.name().c_str());
    else if (args[i].tag() == Value::Tag::TensorList)
      for (const Tensor& t : args[i].to_tensor_list()) t.storage()->bump_version(op.name().c_str());
  }
  // MetaOnlyGuard: ops that write several tensors return nothing; their
  // writes are what is skipped.
  if (t_meta_only && op.schema().returns.empty() && reads_tensors(op, args_in)) [[unlikely]]
    return Tensor();
  if (!dtype) {
    PLEXUS_CHECK(op.composite() != nullptr, ErrorCode::Internal,
                 "{}: its check declined the kernels, but it has no composite", op.name());
    KernelCall call{op, args.span(), device, first_dtype(args_in), {}};
    op.composite()(nullptr, call);
    return call.result;
  }
  return run_kernel(st, op, op.composite(), device, *dtype, args.span());
}

Tensor run_direct(Dispatcher::State& st, const Operator& op, Device device,
                  std::span<const Value> args) {
  if (op.check()) return run_checked(st, op, device, args);
  return run_kernel(st, op, op.composite(), device, first_dtype(args), args);
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
  if (t_meta_only && reads_tensors(op, args_in)) [[unlikely]]
    return given;  // MetaOnlyGuard: the result is made, not computed

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

MetaOnlyGuard::MetaOnlyGuard() : saved_(t_meta_only) {
  t_meta_only = true;
}
MetaOnlyGuard::~MetaOnlyGuard() {
  t_meta_only = saved_;
}
bool MetaOnlyGuard::active() {
  return t_meta_only;
}

struct PreparedCall::Impl {
  Dispatcher::State* state;
  const Operator* op;          // the op as called (for the full path)
  const Operator* kop;         // the op whose kernel runs
  const KernelEntry* kernel;
  Device device;
  DType dtype;
  std::vector<Value> given;    // the arguments as called
  std::vector<Value> kargs;    // the arguments the kernel gets
  std::unique_ptr<MetaContext> ctx;  // owns the views the meta function made
  std::vector<Value> meta_args;      // what ctx rewrote
  Tensor fresh;                      // an idempotent op's distinct elements
  StorageImpl* written = nullptr;
};

PreparedCall::~PreparedCall() = default;

void PreparedCall::run() {
  Impl& p = *impl_;
  if (p.kop->kernel(p.device.type) != p.kernel) [[unlikely]] {
    run_backend(*p.state, *p.op, p.device, p.given);
    return;
  }
  if (p.written) p.written->bump_version(p.op->name().c_str());
  KernelCall call{*p.kop, p.kargs, p.device, p.dtype, {}};
  try {
    p.kernel->fn(p.kernel->ctx, call);
  } catch (const Error& e) {
    throw e.with_context({p.kop->name(), "", std::string(device_type_name(p.device.type)),
                          p.device.str()});
  }
  if (call.declined) [[unlikely]] run_backend(*p.state, *p.op, p.device, p.given);  // it wrote nothing
}

std::unique_ptr<PreparedCall> Dispatcher::prepare(const Operator& op, Device device,
                                                  std::span<const Value> args) {
  // Direct ops, cross-device copies and ops whose result the call allocates
  // keep their full path.
  if (op.kind() == OpKind::Direct || op.kind() == OpKind::Functional) return nullptr;
  if (op.cross_device())
    for (const Value& v : args)
      if (v.is_tensor() && v.to_tensor().device() != device) return nullptr;
  auto impl = std::make_unique<PreparedCall::Impl>();
  impl->state = state_.get();
  impl->op = &op;
  impl->kop = &op.kernel_op();
  impl->device = device;
  impl->given.assign(args.begin(), args.end());
  const bool own_kernel = impl->kop == &op && op.kind() == OpKind::Inplace;
  const size_t nmeta = op.kind() == OpKind::Out ? args.size() - 1 : args.size();
  impl->meta_args.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(nmeta));
  impl->ctx = std::make_unique<MetaContext>(op, std::span(impl->meta_args), device);
  OutputSpec spec = op.meta()(*impl->ctx);
  // An input the meta function converted or moved lives in new memory made
  // for this call only: such a call is not kept, unless the input is a C++
  // number (immutable, so its converted copy stays right).
  for (size_t i = 0; i < nmeta; ++i) {
    if (args[i].is_tensor() != impl->meta_args[i].is_tensor()) return nullptr;
    if (args[i].is_tensor() &&
        args[i].to_tensor().storage() != impl->meta_args[i].to_tensor().storage()) {
      if (!args[i].to_tensor().impl()->wrapped_number) return nullptr;
      continue;
    }
    if (args[i].tag() == Value::Tag::TensorList) {
      auto a = args[i].to_tensor_list(), b = impl->meta_args[i].to_tensor_list();
      if (a.size() != b.size()) return nullptr;
      for (size_t k = 0; k < a.size(); ++k)
        if (a[k].storage() != b[k].storage()) return nullptr;
    }
    if (args[i].is_tensor() && args[i].to_tensor().device() != device) return nullptr;
  }
  const Tensor& given = args[static_cast<size_t>(op.written_arg())].to_tensor();
  check_written(op, given, spec, device, op.idempotent());
  if (given.dtype() != spec.dtype) return nullptr;
  if (op.idempotent()) impl->fresh = distinct_elements(given);
  const Tensor& out = impl->fresh.defined() ? impl->fresh : given;
  if (needs_temporary(op, out, std::span(args.data(), nmeta),
                      op.kind() == OpKind::Inplace ? 0 : SIZE_MAX))
    return nullptr;
  const KernelEntry* k = impl->kop->kernel(device.type);
  if (!k || !k->dtypes.contains(spec.compute_dtype)) return nullptr;
  impl->kernel = k;
  impl->dtype = spec.compute_dtype;
  impl->written = given.storage().get();
  impl->kargs = impl->meta_args;
  if (own_kernel) {
    impl->kargs[static_cast<size_t>(op.written_arg())] = Value::tensor(out);
  } else {
    impl->kargs.push_back(Value::tensor(out));
  }
  auto prepared = std::unique_ptr<PreparedCall>(new PreparedCall);
  prepared->impl_ = std::move(impl);
  return prepared;
}

}  // namespace plexus
