// context.h: what the kernel families of the gpu plugins (cuda, hip, simt)
// get from the runtime: how to register kernels, the device and stream a call
// runs on, launch checks and temporary device memory. The runtime half
// (runtime/*.cpp) implements it; the kernel families (*.cu) use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu.h"
#include "plexus/plugin.hpp"

namespace plexus::gpu {

// A kernel as the families write it: reads call.args, launches, throws
// sdk::Error on failure (the trampoline turns it into a status and message).
using KernelFunction = void (*)(const plexus_kernel_call& call);

// A registered kernel in C form, as a fast path keeps its fallback.
struct KernelRef {
  plexus_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  plexus_status operator()(const plexus_kernel_call& call) const { return fn(user_data, &call); }
};

// Runs Fn under sdk::guard; user_data is the host table.
template <KernelFunction Fn>
plexus_status kernel_trampoline(void* user_data, const plexus_kernel_call* call) noexcept {
  return sdk::guard(static_cast<const plexus_host_api*>(user_data), [&] { Fn(*call); });
}

// Registration of the kernel families during init (runtime/registrar.cpp).
class Registrar {
 public:
  Registrar(const plexus_host_api* host, int32_t slot) : host_(host), slot_(slot) {}

  // Registers Fn as the kernel of `op` (e.g. "mm.out") for the dtypes in
  // `dtypes` (PLEXUS_DTYPE_BIT mask). When a library fast path (cuBLAS,
  // cuDNN) has claimed the op, the fast path is registered instead and calls
  // Fn for the layouts and dtypes it does not take. Throws sdk::Error when the
  // host refuses.
  template <KernelFunction Fn>
  void kernel(const char* op, uint32_t dtypes) const {
    add(op, dtypes, KernelRef{&kernel_trampoline<Fn>, const_cast<plexus_host_api*>(host_)});
  }
  void add(const char* op, uint32_t dtypes, KernelRef own) const;

  const plexus_host_api* host() const { return host_; }
  int32_t slot() const { return slot_; }

 private:
  const plexus_host_api* host_;
  int32_t slot_;
};

// Makes the call's device current on this thread and returns the stream its
// work goes on: call.stream, or the device's default stream when NULL.
gpuStream_t stream_of(const plexus_kernel_call& call);

// "cuda:0" (or "hip:1", "simt:0"): the device a call runs on, for messages.
std::string device_name(int32_t device);

// Throws sdk::Error(PLEXUS_ERROR_DEVICE) "<op> on <device>: <what> failed:
// <error name> (<error string>)" unless e is gpuSuccess.
void check(gpuError_t e, const plexus_kernel_call& call, const char* what);

// After PLEXUS_LAUNCH: throws like check() when the launch failed (bad grid,
// too much shared memory, a sticky error from earlier work), naming `kernel`.
void check_launch(const plexus_kernel_call& call, const char* kernel);

// Temporary device memory for one call (reduction partials, library
// workspaces): valid for work queued on the call's stream until the object
// dies; the block is reused only after that work is done.
class Workspace {
 public:
  Workspace(const plexus_kernel_call& call, size_t nbytes);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t size() const { return size_; }

 private:
  int32_t device_;
  gpuStream_t stream_;
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace plexus::gpu
