// Pinned host buffers for asynchronous host-to-device copies. A copy from
// pageable memory would make the runtime wait for the stream's earlier work
// (CUDA synchronizes before such a copy); copying through a pinned chunk
// instead costs a host memcpy and lets the caller go on while the DMA runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu.h"

namespace plexus::gpu {

class Staging {
 public:
  // Up to max_chunks pinned chunks of chunk_bytes per device, made on demand.
  Staging(int32_t devices, size_t chunk_bytes, size_t max_chunks);
  ~Staging();  // waits for the chunks' copies, then frees them
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // Queues the copy of n bytes from host src to device dst on stream and
  // returns once src has been read (the DMA may still run). Falls back to a
  // copy that waits for the stream when no pinned memory can be had.
  void copy_to_device(int32_t device, void* dst, const void* src, size_t n, gpuStream_t stream);

 private:
  struct Chunk {
    void* host = nullptr;
    gpuEvent_t done = nullptr;  // recorded after the chunk's last copy
    bool busy = false;          // a thread is filling it
    uint64_t last_use = 0;      // order of submission, to wait for the oldest
  };
  struct Pool {
    std::mutex mutex;
    std::vector<Chunk> chunks;
    uint64_t uses = 0;
  };
  // A chunk no copy is reading any more, marked busy; nullptr when no pinned
  // memory can be had.
  Chunk* acquire(int32_t device);
  Chunk* make_chunk(int32_t device, Pool& pool);
  void release(Pool& pool, Chunk& chunk);

  size_t chunk_bytes_;
  size_t max_chunks_;
  std::vector<std::unique_ptr<Pool>> pools_;  // per device
};

}  // namespace plexus::gpu
