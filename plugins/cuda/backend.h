// The device type a gpu plugin (cuda, hip, simt) registers: its plexus_backend
// table through sdk::Backend, over the GPU runtime (CUDA, HIP or the SIMT
// emulation). The functions live with their subject: device.cpp, memory.cpp,
// stream.cpp; backend.cpp has the object's life, kernel registration and the
// stream lookup.
#pragma once

#include <cstddef>
#include <cstdint>

#include "device.h"
#include "gpu.h"
#include "memory.h"
#include "plexus/plugin.hpp"
#include "stream.h"

namespace plexus::gpu {

class GpuBackend : public sdk::Backend<GpuBackend> {
 public:
  // Finds the devices; the streams and pools are made on first use.
  explicit GpuBackend(DefaultStreams::Policy policy);
  ~GpuBackend();

  // device.cpp
  int32_t device_count() { return devices_.count(); }
  const char* unavailable_reason() { return devices_.unavailable_reason(); }
  void properties(int32_t device, plexus_device_properties& out);
  void synchronize(int32_t device);

  // memory.cpp: raw device memory (the core's caching allocator sits above), memset, copies.
  void* allocate(int32_t device, size_t nbytes);
  void deallocate(int32_t device, void* ptr, size_t nbytes);
  void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes, void* stream);
  void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                           size_t nbytes, void* stream);
  void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                           size_t nbytes, void* stream);
  void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void* stream);

  // stream.cpp
  void* stream_create(int32_t device);
  void stream_destroy(int32_t device, void* stream);
  void stream_synchronize(int32_t device, void* stream);
  void* event_create(int32_t device);
  void event_destroy(int32_t device, void* event);
  void event_record(int32_t device, void* event, void* stream);
  void event_wait(int32_t device, void* event, void* stream);
  void event_synchronize(int32_t device, void* event);

  // Registers Fn(call) as the kernel of `op` for the dtypes in dtype_mask,
  // the one way kernels are registered (sdk::Backend's), except that an op a
  // library fast path has claimed (fast_path.h) gets the fast path, which
  // hands Fn what it declines. These hide sdk::Backend's overloads, to which
  // they pass the kernel on. Only during init; throws when the host refuses.
  template <sdk::KernelFunction Fn>
  void register_kernel(const char* op, uint32_t dtype_mask) {
    register_kernel(op, dtype_mask, &sdk::kernel_trampoline<Fn>,
                    const_cast<plexus_host_api*>(host()));
  }
  void register_kernel(const char* op, uint32_t dtype_mask, plexus_kernel_fn fn, void* user_data);

  // The runtime stream for a plexus stream (NULL: the default stream) on
  // `device`, which becomes current on this thread. Checks the index.
  gpuStream_t resolve(int32_t device, void* stream, const char* what);
  Workspaces& workspaces() { return workspaces_; }
  const Devices& devices() const { return devices_; }

 private:
  Devices devices_;
  DefaultStreams streams_;
  Staging staging_;
  Workspaces workspaces_;
};

// The plugin's backend between init and shutdown, for the kernels' side of
// the runtime (stream_of, Workspace).
GpuBackend& backend();
void set_backend(GpuBackend* backend);

}  // namespace plexus::gpu
