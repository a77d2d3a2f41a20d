// Device memory is host memory, tracked by address so that copies and
// memsets can check that their device side lies inside one live allocation:
// a runtime passing a host pointer as a device one fails here as on a GPU.
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "internal.h"

namespace simt::detail {
namespace {

constexpr size_t kAlignment = 256;  // cudaMalloc's guarantee

std::mutex g_mutex;
std::map<uintptr_t, size_t> g_device;  // start -> size
size_t g_device_bytes = 0;              // the sum of g_device's sizes
std::set<void*> g_pinned;

bool is_device(const void* p, size_t n) {
  auto a = uintptr_t(p);
  std::lock_guard lock(g_mutex);
  auto it = g_device.upper_bound(a);
  if (it == g_device.begin()) return false;
  --it;
  return a >= it->first && a - it->first + n <= it->second && (n > 0 || a < it->first + it->second);
}

bool sides_ok(void* dst, const void* src, size_t n, simtMemcpyKind kind) {
  bool to_device = kind == simtMemcpyHostToDevice || kind == simtMemcpyDeviceToDevice;
  bool from_device = kind == simtMemcpyDeviceToHost || kind == simtMemcpyDeviceToDevice;
  return is_device(dst, n) == to_device && is_device(src, n) == from_device;
}

}  // namespace

size_t device_memory() {
  // PLEXUS_SIMT_DEVICE_MEMORY (bytes) makes the device that small, so that
  // tests can fill it; by default it has the host's memory.
  static const size_t limit = [] {
    const char* env = std::getenv("PLEXUS_SIMT_DEVICE_MEMORY");
    return env && *env ? size_t(std::strtoull(env, nullptr, 10)) : size_t(0);
  }();
  return limit ? limit : size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
}

size_t device_memory_used() {
  std::lock_guard lock(g_mutex);
  return g_device_bytes;
}

}  // namespace simt::detail

using namespace simt;
using namespace simt::detail;

simtError_t simtMalloc(void** ptr, size_t size) {
  if (!ptr) return fail(simtErrorInvalidValue);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  *ptr = nullptr;
  if (size == 0) return simtSuccess;
  {
    std::lock_guard lock(g_mutex);
    if (size > device_memory() - std::min(g_device_bytes, device_memory()))
      return fail(simtErrorMemoryAllocation);
    g_device_bytes += size;  // reserved before the host allocation, given back below on failure
  }
  void* p = std::aligned_alloc(kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
  std::lock_guard lock(g_mutex);
  if (!p) {
    g_device_bytes -= size;
    return fail(simtErrorMemoryAllocation);
  }
  std::memset(p, 0xff, size);  // fresh memory reads as NaN / -1, like garbage
  g_device[uintptr_t(p)] = size;
  *ptr = p;
  return simtSuccess;
}

simtError_t simtFree(void* ptr) {
  if (!ptr) return simtSuccess;
  {
    std::lock_guard lock(g_mutex);
    auto it = g_device.find(uintptr_t(ptr));
    if (it == g_device.end()) return fail(simtErrorInvalidDevicePointer);
    g_device_bytes -= it->second;
    g_device.erase(it);
  }
  // Like cudaFree: waits for the device so no queued work still uses it.
  simtDeviceSynchronize();
  std::free(ptr);
  return simtSuccess;
}

simtError_t simtMallocHost(void** ptr, size_t size) {
  if (!ptr) return fail(simtErrorInvalidValue);
  *ptr = std::aligned_alloc(kAlignment,
                            (size + kAlignment - 1) / kAlignment * kAlignment + kAlignment);
  if (!*ptr) return fail(simtErrorMemoryAllocation);
  std::lock_guard lock(g_mutex);
  g_pinned.insert(*ptr);
  return simtSuccess;
}

simtError_t simtFreeHost(void* ptr) {
  if (!ptr) return simtSuccess;
  {
    std::lock_guard lock(g_mutex);
    if (!g_pinned.erase(ptr)) return fail(simtErrorInvalidValue);
  }
  simtDeviceSynchronize();
  std::free(ptr);
  return simtSuccess;
}

simtError_t simtMemcpyAsync(void* dst, const void* src, size_t count, simtMemcpyKind kind,
                            simtStream_t stream) {
  if (kind < simtMemcpyHostToHost || kind > simtMemcpyDeviceToDevice)
    return fail(simtErrorInvalidMemcpyDirection);
  if (count == 0) return simtSuccess;
  if (!dst || !src || !sides_ok(dst, src, count, kind)) return fail(simtErrorInvalidValue);
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  enqueue(*s, [dst, src, count] { std::memmove(dst, src, count); });
  return simtSuccess;
}

simtError_t simtMemsetAsync(void* ptr, int value, size_t count, simtStream_t stream) {
  if (count == 0) return simtSuccess;
  if (!is_device(ptr, count)) return fail(simtErrorInvalidValue);
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  enqueue(*s, [ptr, value, count] { std::memset(ptr, value, count); });
  return simtSuccess;
}

simtError_t simtMemcpy(void* dst, const void* src, size_t count, simtMemcpyKind kind) {
  simtError_t e = simtMemcpyAsync(dst, src, count, kind, nullptr);
  return e != simtSuccess ? e : simtStreamSynchronize(nullptr);
}

simtError_t simtMemset(void* ptr, int value, size_t count) {
  simtError_t e = simtMemsetAsync(ptr, value, count, nullptr);
  return e != simtSuccess ? e : simtStreamSynchronize(nullptr);
}
