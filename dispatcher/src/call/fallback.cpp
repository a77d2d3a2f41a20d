// The fallback policy (DESIGN.md, "When a backend lacks a kernel"): what runs
// when a backend has no kernel for an op and dtype and the op has no composite.
// Policy `cpu` copies the arguments to the host, runs the cpu kernel, writes the
// result back, warns once per op and dtype and counts it; policy `error` raises
// an error naming the op, dtype, backend and what the backend does support. A
// backend kernel that declined a call (KernelCall::declined) is treated the
// same way, and the messages say it declined.
#include "call/fallback.h"

#include <fmt/format.h>

#include "call/args.h"
#include "call/transfer.h"
#include "plexus/log.h"

namespace plexus {

std::string_view fallback_policy_name(FallbackPolicy p) {
  return p == FallbackPolicy::Cpu ? "cpu" : "error";
}

void Dispatcher::set_fallback_policy(FallbackPolicy p) { state_->fallback.store(p); }
FallbackPolicy Dispatcher::fallback_policy() const { return state_->fallback.load(); }

std::vector<FallbackCount> Dispatcher::fallback_counts() const {
  std::lock_guard lock(state_->fallback_mutex);
  std::vector<FallbackCount> out;
  for (auto& [key, n] : state_->fallback_counts) out.push_back({key.first, key.second, n});
  return out;
}

namespace {

size_t kernel_count(DeviceType backend) {
  size_t n = 0;
  for (const Operator* o : Dispatcher::get().ops())
    if (o->kernel(backend)) ++n;
  return n;
}

// "declined it (because ...)" or "has no kernel for it".
std::string what_happened(const std::string& backend, const Operator& kop, DType dtype,
                          const Missing& why) {
  if (!why.declined)
    return fmt::format("{} has no kernel for '{}' for {}", backend, kop.name(), dtype_name(dtype));
  return fmt::format("{}'s kernel for '{}' declined a {} call{}", backend, kop.name(),
                     dtype_name(dtype), why.because.empty() ? "" : " (" + why.because + ")");
}

void note_fallback(Dispatcher::State& st, const Operator& kop, Device device, DType dtype,
                   const Missing& why) {
  std::string backend(device_type_name(device.type));
  bool first;
  {
    std::lock_guard lock(st.fallback_mutex);
    st.fallback_counts[{kop.name(), backend}]++;
    first = st.fallback_warned.emplace(kop.name(), backend, dtype).second;
  }
  if (first)
    logging::get("dispatcher").warn("{}; running it on the cpu (copies to and from the host; "
                                    "warned once per op and dtype)",
                                    what_happened(backend, kop, dtype, why));
}

}  // namespace

[[noreturn]] void no_kernel(const Operator& kop, Device device, DType dtype, bool cpu_tried,
                            const Missing& why) {
  std::string backend(device_type_name(device.type));
  const KernelEntry* k = kop.kernel(device.type);
  std::string what =
      why.declined ? what_happened(backend, kop, dtype, why)
      : k ? fmt::format("{} has a kernel for '{}' only for {}, not {}", backend, kop.name(),
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

// Runs `kop` on the cpu with host copies of the arguments; writes the result back.
Tensor run_on_cpu(Dispatcher::State& st, const Operator& kop, Device device, DType dtype,
                  std::span<const Value> kargs, const Missing& why) {
  const KernelEntry* ck = kop.kernel(kCPU);
  if (!ck || !ck->dtypes.contains(dtype)) no_kernel(kop, device, dtype, true, why);
  note_fallback(st, kop, device, dtype, why);
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
  if (call.declined) no_kernel(kop, device, dtype, true, why);  // the cpu declined it too
  int w = kop.written_arg();
  if (w >= 0) {
    write_from_host(kargs[w].to_tensor(), host[w].to_tensor());
    return kargs[w].to_tensor();
  }
  return call.result.defined() ? call.result.to(device) : call.result;
}

}  // namespace plexus
