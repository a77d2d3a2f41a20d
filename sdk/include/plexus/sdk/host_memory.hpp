// sdk::HostMemoryBackend<Impl>: a Backend<Impl> whose device memory is host
// memory (malloc, memcpy), for devices the host can address directly (shared
// or unified memory, simulators) and for a plugin's first day. Impl adds
// device_count(), properties() and kernels; work runs synchronously, so there
// are no streams. A device with memory of its own replaces these functions
// (sdk/template shows an arena addressed by handles).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include "plexus/sdk/backend.hpp"
#include "plexus/sdk/dtype.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

template <typename Impl>
class HostMemoryBackend : public Backend<Impl> {
 public:
  void* allocate(int32_t, size_t nbytes) {
    void* p = std::malloc(nbytes);
    if (!p) fail(PLEXUS_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(nbytes) + " bytes");
    return p;
  }
  void deallocate(int32_t, void* ptr, size_t) { std::free(ptr); }
  void memset(int32_t, void* ptr, size_t offset, int32_t value, size_t nbytes, void*) {
    std::memset(static_cast<char*>(ptr) + offset, value, nbytes);
  }
  void copy_host_to_device(int32_t, void* dst, size_t dst_offset, const void* src, size_t nbytes,
                           void*) {
    std::memcpy(static_cast<char*>(dst) + dst_offset, src, nbytes);
  }
  void copy_device_to_host(int32_t, void* dst, const void* src, size_t src_offset, size_t nbytes,
                           void*) {
    std::memcpy(dst, static_cast<const char*>(src) + src_offset, nbytes);
  }
  void copy_device_to_device(int32_t, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void*) {
    std::memcpy(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
                nbytes);
  }
  void synchronize(int32_t) {}

  // Fills what properties() must report for a device of this kind: name,
  // vendor, kind (PLEXUS_DEVICE_KIND_*), host-addressable memory of
  // `total_memory` bytes, and every dtype.
  static void describe(plexus_device_properties& out, const char* name, const char* vendor,
                       int32_t kind, uint64_t total_memory = 0) {
    copy_string(out.name, name);
    copy_string(out.vendor, vendor);
    out.kind = kind;
    out.capabilities = PLEXUS_CAP_HOST_ADDRESSABLE;
    out.total_memory = total_memory;
    out.dtypes = kAllDTypes;
  }

 protected:
  HostMemoryBackend() = default;
  ~HostMemoryBackend() = default;
};

}  // namespace plexus::sdk
