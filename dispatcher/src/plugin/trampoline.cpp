// The ABI trampoline: every plugin kernel is called through kernel_trampoline,
// which turns the dispatcher's KernelCall into a plexus_kernel_call.
#include "plugin/trampoline.h"

#include <fmt/format.h>

#include "plexus/op.h"
#include "plexus/stream.h"

namespace plexus {

plexus_scalar to_abi_scalar(Scalar s) {
  plexus_scalar a{};
  if (s.is_floating()) {
    a.kind = PLEXUS_SCALAR_FLOAT;
    a.v.f = s.to_double();
  } else {
    a.kind = s.is_bool() ? PLEXUS_SCALAR_BOOL : PLEXUS_SCALAR_INT;
    a.v.i = s.to_int();
  }
  return a;
}

namespace {
// Writes `v` as the ABI value `a`; its tensors go to tensors[nt...], and nt
// advances past them.
void to_abi_value(const Value& v, plexus_value& a, plexus_tensor* tensors, size_t& nt) {
  a.reserved = 0;
  switch (v.tag()) {
    case Value::Tag::None:
      a.tag = PLEXUS_VALUE_NONE;
      a.u.i = 0;
      break;
    case Value::Tag::Tensor:
      a.tag = PLEXUS_VALUE_TENSOR;
      tensors[nt] = to_abi_tensor(v.to_tensor());
      a.u.tensor = &tensors[nt++];
      break;
    case Value::Tag::TensorList: {
      a.tag = PLEXUS_VALUE_TENSOR_LIST;
      auto list = v.to_tensor_list();
      a.u.tensor_list.items = tensors + nt;
      a.u.tensor_list.count = static_cast<int64_t>(list.size());
      for (const Tensor& t : list) tensors[nt++] = to_abi_tensor(t);
      break;
    }
    case Value::Tag::Scalar:
      a.tag = PLEXUS_VALUE_SCALAR;
      a.u.scalar = to_abi_scalar(v.to_scalar());
      break;
    case Value::Tag::Int:
      a.tag = PLEXUS_VALUE_INT;
      a.u.i = v.to_int();
      break;
    case Value::Tag::IntList:
      a.tag = PLEXUS_VALUE_INT_LIST;
      a.u.int_list.items = v.to_int_list().data();
      a.u.int_list.count = static_cast<int64_t>(v.to_int_list().size());
      break;
    case Value::Tag::Double:
      a.tag = PLEXUS_VALUE_FLOAT;
      a.u.f = v.to_double();
      break;
    case Value::Tag::Bool:
      a.tag = PLEXUS_VALUE_BOOL;
      a.u.b = v.to_bool();
      break;
    case Value::Tag::String:
      a.tag = PLEXUS_VALUE_STRING;
      a.u.string.data = v.to_string().data();
      a.u.string.size = static_cast<int64_t>(v.to_string().size());
      break;
    case Value::Tag::DType:
      a.tag = PLEXUS_VALUE_DTYPE;
      a.u.dtype = static_cast<plexus_dtype>(v.to_dtype());
      break;
    case Value::Tag::Device:
      a.tag = PLEXUS_VALUE_DEVICE;
      a.u.device.type = v.to_device().type;
      a.u.device.index = v.to_device().index;
      break;
  }
}

}  // namespace

AbiArgs::AbiArgs(const KernelCall& call) : size_(call.args.size()) {
  size_t ntensors = 0;
  for (const Value& v : call.args) {
    if (v.tag() == Value::Tag::Tensor) ntensors++;
    else if (v.tag() == Value::Tag::TensorList) ntensors += v.to_tensor_list().size();
  }
  values_ = inline_values_;
  if (size_ > kInline) {
    heap_values_.resize(size_);
    values_ = heap_values_.data();
  }
  plexus_tensor* tensors = inline_tensors_;
  if (ntensors > kInline) {
    heap_tensors_.resize(ntensors);
    tensors = heap_tensors_.data();
  }
  size_t nt = 0;
  for (size_t i = 0; i < size_; ++i) {
    to_abi_value(call.args[i], values_[i], tensors, nt);
  }
}

namespace {
thread_local std::string tl_message;
}

void set_plugin_error_message(std::string message) { tl_message = std::move(message); }

std::string take_plugin_error_message() {
  std::string m = std::move(tl_message);
  tl_message.clear();
  return m;
}

Error plugin_error(plexus_status status, const std::string& plugin, const std::string& what) {
  ErrorCode code = (status >= PLEXUS_ERROR_INVALID_ARGUMENT && status <= PLEXUS_ERROR_IO)
                       ? static_cast<ErrorCode>(status)
                       : ErrorCode::Internal;
  std::string message = take_plugin_error_message();
  if (message.empty())
    message = fmt::format("{} returned status {} ({}) without a message", what, status,
                          error_code_name(code));
  std::string prefix = fmt::format("plugin '{}': ", plugin);
  if (message.rfind(prefix, 0) == 0) return Error(code, message);  // the host's own words
  return Error(code, prefix + message);
}

void kernel_trampoline(void* ctx, KernelCall& call) {
  PluginKernel& k = *static_cast<PluginKernel*>(ctx);
  AbiArgs abi(call);
  plexus_kernel_call c{};
  c.struct_size = sizeof(plexus_kernel_call);
  c.op = call.op.name().c_str();
  c.args = abi.values();
  c.num_args = static_cast<int64_t>(abi.size());
  c.device_index = call.device.index;
  c.dtype = static_cast<plexus_dtype>(call.dtype);
  c.stream = detail::current_stream_handle(call.device);  // this thread's (plexus/stream.h)
  c.host_call = &call;
  plexus_status st = k.fn(k.user_data, &c);
  if (st == PLEXUS_OK) [[likely]]
    return;
  if (st == PLEXUS_KERNEL_DECLINED) {  // ABI 1.2: the host's composite or fallback runs instead
    call.declined = true;
    call.declined_because = take_plugin_error_message();
    return;
  }
  throw plugin_error(st, k.plugin, fmt::format("kernel for '{}'", call.op.name()));
}

}  // namespace plexus
