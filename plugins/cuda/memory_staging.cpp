// Pinned staging for host-to-device copies (Staging, memory.h): a ring of
// pinned chunks per device, each free again once the event after its copy has fired.
#include <algorithm>
#include <cstring>
#include <thread>

#include "device.h"
#include "errors.h"
#include "memory.h"

namespace plexus::gpu {

Staging::Staging(int32_t devices, size_t chunk_bytes, size_t max_chunks)
    : chunk_bytes_(chunk_bytes), max_chunks_(max_chunks) {
  for (int32_t d = 0; d < devices; ++d) pools_.push_back(std::make_unique<Pool>());
}

Staging::~Staging() {
  for (size_t d = 0; d < pools_.size(); ++d) {
    for (Chunk& c : pools_[d]->chunks) {
      (void)gpuSetDevice(static_cast<int>(d));
      (void)gpuEventSynchronize(c.done);
      (void)gpuEventDestroy(c.done);
      (void)gpuFreeHost(c.host);
    }
  }
}

Staging::Chunk* Staging::make_chunk(int32_t device, Pool& pool) {
  use_device(device);
  Chunk c;
  if (gpuMallocHost(&c.host, chunk_bytes_) != gpuSuccess) {
    (void)gpuGetLastError();
    return nullptr;
  }
  if (gpuEventCreateWithFlags(&c.done, gpuEventDisableTiming) != gpuSuccess) {
    (void)gpuGetLastError();
    (void)gpuFreeHost(c.host);
    return nullptr;
  }
  pool.chunks.reserve(max_chunks_);  // Chunk pointers stay valid: never more than this
  pool.chunks.push_back(c);
  return &pool.chunks.back();
}

Staging::Chunk* Staging::acquire(int32_t device) {
  Pool& pool = *pools_.at(static_cast<size_t>(device));
  std::unique_lock lock(pool.mutex);
  for (;;) {
    Chunk* oldest = nullptr;
    for (Chunk& c : pool.chunks) {
      if (c.busy) continue;
      if (gpuEventQuery(c.done) == gpuSuccess) {
        c.busy = true;
        return &c;
      }
      (void)gpuGetLastError();  // gpuErrorNotReady is recorded as the last error
      if (!oldest || c.last_use < oldest->last_use) oldest = &c;
    }
    if (pool.chunks.size() < max_chunks_) {
      if (Chunk* c = make_chunk(device, pool)) {
        c->busy = true;
        return c;
      }
      if (pool.chunks.empty()) return nullptr;
    }
    if (!oldest) {  // every chunk is being filled by other threads
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      continue;
    }
    oldest->busy = true;
    gpuEvent_t done = oldest->done;
    lock.unlock();
    gpuError_t e = gpuEventSynchronize(done);
    if (e != gpuSuccess) {
      lock.lock();
      oldest->busy = false;
      fail_gpu(e, device, PLEXUS_GPU_PREFIX "EventSynchronize (staging)");
    }
    return oldest;
  }
}

void Staging::release(Pool& pool, Chunk& chunk) {
  std::lock_guard lock(pool.mutex);
  chunk.busy = false;
  chunk.last_use = ++pool.uses;
}

void Staging::copy_to_device(int32_t device, void* dst, const void* src, size_t n,
                             gpuStream_t stream) {
  Pool& pool = *pools_.at(static_cast<size_t>(device));
  auto* out = static_cast<char*>(dst);
  auto* in = static_cast<const char*>(src);
  while (n > 0) {
    Chunk* c = acquire(device);
    if (!c) {  // no pinned memory: the runtime's pageable path, waited for
      check_gpu(gpuMemcpyAsync(out, in, n, gpuMemcpyHostToDevice, stream), device,
                PLEXUS_GPU_PREFIX "MemcpyAsync (host to device, pageable)");
      check_gpu(gpuStreamSynchronize(stream), device, PLEXUS_GPU_PREFIX "StreamSynchronize");
      return;
    }
    size_t k = std::min(n, chunk_bytes_);
    std::memcpy(c->host, in, k);
    gpuError_t e = gpuMemcpyAsync(out, c->host, k, gpuMemcpyHostToDevice, stream);
    if (e == gpuSuccess) e = gpuEventRecord(c->done, stream);
    release(pool, *c);
    check_gpu(e, device, PLEXUS_GPU_PREFIX "MemcpyAsync (host to device, staged)");
    out += k;
    in += k;
    n -= k;
  }
}

}  // namespace plexus::gpu
