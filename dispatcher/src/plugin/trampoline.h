// The ABI trampoline: conversions between the dispatcher's types and the
// plugin ABI's, the call of a plugin kernel, and the per-thread error message
// a plugin attaches to a failing status.
#pragma once

#include <string>

#include <vector>

#include "plexus/error.h"
#include "plexus/kernel.h"
#include "plexus/plugin.h"

namespace plexus {

// The ABI's description of a tensor; its sizes and strides point into `t`,
// valid while t is alive.
inline plexus_tensor to_abi_tensor(const Tensor& t) {
  plexus_tensor a;
  a.storage = t.storage()->data();
  a.offset = t.storage_offset();
  a.sizes = t.sizes().data();
  a.strides = t.strides().data();
  a.ndim = static_cast<int32_t>(t.dim());
  a.dtype = static_cast<plexus_dtype>(t.dtype());
  a.device_index = t.device().index;
  a.reserved = 0;
  return a;
}

// The ABI's form of a number.
plexus_scalar to_abi_scalar(Scalar s);

// A kernel call's arguments as plexus_values, with the plexus_tensors they
// point to; valid while the KernelCall is.
class AbiArgs {
 public:
  explicit AbiArgs(const KernelCall& call);
  AbiArgs(const AbiArgs&) = delete;
  AbiArgs& operator=(const AbiArgs&) = delete;
  const plexus_value* values() const { return values_; }
  size_t size() const { return size_; }

 private:
  // Calls fit the inline arrays (left uninitialized: every used slot is
  // written); long tensor lists (cat) spill to the heap.
  static constexpr size_t kInline = 16;
  plexus_value inline_values_[kInline];
  plexus_tensor inline_tensors_[kInline];
  std::vector<plexus_value> heap_values_;
  std::vector<plexus_tensor> heap_tensors_;
  plexus_value* values_;
  size_t size_;
};

// Keeps a message for the error status the plugin returns next on this thread.
void set_plugin_error_message(std::string message);
// The kept message (empty when none), cleared.
std::string take_plugin_error_message();
// The Error for a plugin's failing status: its code, and the plugin's message
// or, without one, what failed ("plugin 'toydev': init returned out of memory").
Error plugin_error(plexus_status status, const std::string& plugin, const std::string& what);

// One registered plugin kernel: the context kernel_trampoline is registered with.
struct PluginKernel {
  plexus_kernel_fn fn;
  void* user_data;
  std::string plugin;  // the plugin's name, for errors
};

// A KernelFn (plexus/kernel.h) whose ctx is a PluginKernel: calls the plugin's
// kernel with the ABI's view of `call`; a failing status becomes an Error.
void kernel_trampoline(void* ctx, KernelCall& call);

}  // namespace plexus
