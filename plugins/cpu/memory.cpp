// Host memory: 64-byte aligned allocations, memset and copies as memcpy.
// Host memory stays the core's (the host ignores these functions for the cpu
// slot); they are still real, for completeness.
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend.h"

namespace plexus::cpu {

void* CpuBackend::allocate(int32_t, size_t nbytes) {
  void* p = std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
  if (!p) sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY, "cpu: allocating {} bytes failed", nbytes);
  return p;
}

void CpuBackend::deallocate(int32_t, void* ptr, size_t) {
  std::free(ptr);
}

void CpuBackend::memset(int32_t, void* ptr, size_t offset, int32_t value, size_t nbytes, void*) {
  std::memset(static_cast<char*>(ptr) + offset, value, nbytes);
}

void CpuBackend::copy_host_to_device(int32_t, void* dst, size_t dst_offset, const void* src,
                                     size_t nbytes, void*) {
  std::memcpy(static_cast<char*>(dst) + dst_offset, src, nbytes);
}

void CpuBackend::copy_device_to_host(int32_t, void* dst, const void* src, size_t src_offset,
                                     size_t nbytes, void*) {
  std::memcpy(dst, static_cast<const char*>(src) + src_offset, nbytes);
}

void CpuBackend::copy_device_to_device(int32_t, void* dst, size_t dst_offset, const void* src,
                                       size_t src_offset, size_t nbytes, void*) {
  std::memcpy(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
              nbytes);
}

}  // namespace plexus::cpu
