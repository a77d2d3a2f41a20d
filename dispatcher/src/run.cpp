// The backend step of a call: meta function, output, then a kernel, the
// op's composite, or the fallback policy.
#include <fmt/format.h>

#include <cstring>
#include <new>

#include "dispatcher_state.h"
#include "overlap.h"
#include "plexus/device_backend.h"
#include "plexus/factories.h"
#include "plexus/log.h"
#include "plexus/meta.h"
#include "transfer.h"

namespace plexus {
namespace {

// The boxed arguments of one call, copied so meta functions may rewrite them.
// Values are trivially copyable, so filling the buffer is a memcpy.
class Args {
 public:
  static constexpr size_t kCapacity = 24;
  Args(std::span<const Value> v) : n_(v.size()) {
    PLEXUS_CHECK(n_ < kCapacity, ErrorCode::Unsupported, "ops take at most {} arguments",
                 kCapacity - 1);
    std::memcpy(static_cast<void*>(buf_), v.data(), n_ * sizeof(Value));
  }
  Value* begin() { return data(); }
  Value* end() { return data() + n_; }
  Value* data() { return std::launder(reinterpret_cast<Value*>(buf_)); }
  size_t size() const { return n_; }
  Value& operator[](size_t i) { return data()[i]; }
  void resize(size_t n) { n_ = n; }
  void push_back(const Value& v) { std::memcpy(static_cast<void*>(data() + n_++), &v, sizeof(Value)); }
  std::span<const Value> span() { return {data(), n_}; }

 private:
  static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_destructible_v<Value>);
  alignas(Value) std::byte buf_[kCapacity * sizeof(Value)];
  size_t n_;
};

size_t kernel_count(DeviceType backend) {
  size_t n = 0;
  for (const Operator* o : Dispatcher::get().ops())
    if (o->kernel(backend)) ++n;
  return n;
}

[[noreturn]] void no_kernel(const Operator& kop, Device device, DType dtype, bool cpu_tried) {
  std::string backend(device_type_name(device.type));
  const KernelEntry* k = kop.kernel(device.type);
  std::string what =
      k ? fmt::format("{} has a kernel for '{}' only for {}, not {}", backend, kop.name(),
                      k->dtypes.str(), dtype_name(dtype))
        : fmt::format("{} has no kernel for '{}' for {} (it has kernels for {} ops)", backend,
                      kop.name(), dtype_name(dtype), kernel_count(device.type));
  std::string hint;
  if (cpu_tried) {
    const KernelEntry* c = kop.kernel(kCPU);
    hint = c ? fmt::format("; the cpu fallback has it only for {}", c->dtypes.str())
             : "; the cpu fallback has no kernel for it either";
  } else if (!device.is_cpu()) {
    hint = "; the fallback policy is 'error' (policy 'cpu' would run it on the cpu)";
  }
  throw Error(ErrorCode::Unsupported, what + hint,
              {kop.name(), "", backend, device.str()});
}

void note_fallback(Dispatcher::State& st, const Operator& kop, Device device) {
  std::string backend(device_type_name(device.type));
  bool first;
  {
    std::lock_guard lock(st.fallback_mutex);
    first = st.fallback_counts[{kop.name(), backend}]++ == 0;
  }
  if (first)
    log::get("dispatcher").warn("{} has no kernel for '{}'; running it on the cpu (copies to and "
                                "from the host; warned once per op)", backend, kop.name());
}

// Runs `kop` on the cpu with host copies of the arguments; writes the result back.
Tensor run_on_cpu(Dispatcher::State& st, const Operator& kop, Device device, DType dtype,
                  std::span<const Value> kargs) {
  const KernelEntry* ck = kop.kernel(kCPU);
  if (!ck || !ck->dtypes.contains(dtype)) no_kernel(kop, device, dtype, true);
  note_fallback(st, kop, device);
  Args host(kargs);
  std::vector<Tensor> keep;
  std::vector<std::vector<Tensor>> keep_lists;
  keep.reserve(kargs.size());
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i].tag() == Value::Tag::Tensor) {
      host[i] = Value::tensor(keep.emplace_back(host_copy_of(host[i].to_tensor())));
    } else if (host[i].tag() == Value::Tag::TensorList) {
      auto& list = keep_lists.emplace_back();
      for (const Tensor& t : host[i].to_tensor_list()) list.push_back(host_copy_of(t));
      host[i] = Value::tensor_list(list);
    }
  }
  KernelCall call{kop, host.span(), Device(), dtype, {}};
  ck->fn(ck->ctx, call);
  int w = kop.written_arg();
  if (w >= 0) {
    write_from_host(kargs[w].to_tensor(), host[w].to_tensor());
    return kargs[w].to_tensor();
  }
  return call.result.defined() ? call.result.to(device) : call.result;
}

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

// The tensor an in-place or out call writes, checked against the meta's spec.
void check_written(const Operator& op, const Tensor& out, const OutputSpec& spec, Device device) {
  const std::string& name = op.schema().arguments[op.written_arg()].name;
  if (out.device() != device)
    fail_arg(name, "expected a tensor on {}, got one on {}", device.str(), out.device().str());
  if (!std::equal(out.sizes().begin(), out.sizes().end(), spec.sizes.begin(), spec.sizes.end()))
    fail_arg(name, "the result has shape {}, but the written tensor has shape {}",
             shape_str(spec.sizes), shape_str(out.sizes()));
  if (!can_cast(spec.dtype, out.dtype()))
    fail_arg(name, "the result type {} can't be cast to the written tensor's type {}",
             dtype_name(spec.dtype), dtype_name(out.dtype()));
  if (has_internal_overlap(out))
    fail_arg(name, "the written tensor has elements that share memory (an expanded view); "
                   "write into a tensor with distinct elements");
}

// True when the kernel must write into a temporary and the result be copied:
// an input shares memory with the output other than being exactly it.
bool needs_temporary(const Operator& op, const Tensor& out, std::span<const Value> inputs,
                     size_t skip) {
  bool temp = false;
  auto check = [&](const Tensor& t, size_t i) {
    switch (overlap(out, t)) {
      case Overlap::None: return;
      case Overlap::Full:
        if (!op.elementwise()) temp = true;
        return;
      case Overlap::Partial:
        fail_arg(op.schema().arguments[i].name,
                 "this input partially overlaps the written tensor {}; some elements would be "
                 "read after being written. Pass a copy (.clone())",
                 op.schema().arguments[op.written_arg()].name);
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == skip) continue;
    if (inputs[i].tag() == Value::Tag::Tensor) check(inputs[i].to_tensor(), i);
    else if (inputs[i].tag() == Value::Tag::TensorList)
      for (const Tensor& t : inputs[i].to_tensor_list()) check(t, i);
  }
  return temp;
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

  Tensor fresh;  // the output of a functional call
  if (op.kind() == OpKind::Functional) fresh = empty(spec.sizes, {spec.dtype, device});
  const Tensor& out = op.kind() == OpKind::Functional ? fresh : args_in[op.written_arg()].to_tensor();
  if (op.kind() != OpKind::Functional) check_written(op, out, spec, device);

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
  return out;
}

}  // namespace plexus
