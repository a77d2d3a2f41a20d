// The "cpu" device type as an sdk::Backend: one device, the host, whose
// kernels finish before they return.
//
// Its functions live by concern: device.cpp (count, properties) and memory.cpp
// (allocation, memset, copies). There is no stream.* (kernels run to completion
// on the calling thread and its OpenMP team: no streams or events) and no
// errors.* (errors are raised with sdk::fail where they happen).
#pragma once

#include <cstddef>
#include <cstdint>

#include "plexus/plugin.hpp"

namespace plexus::cpu {

class CpuBackend : public sdk::Backend<CpuBackend> {
 public:
  CpuBackend() = default;

  int32_t device_count();
  void properties(int32_t device, plexus_device_properties& out);
  void* allocate(int32_t device, size_t nbytes);
  void deallocate(int32_t device, void* ptr, size_t nbytes);
  void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes, void* stream);
  void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                           size_t nbytes, void* stream);
  void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                           size_t nbytes, void* stream);
  void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void* stream);
  // Kernels and copies finish before they return: nothing to wait for.
  void synchronize(int32_t) {}
};

}  // namespace plexus::cpu
