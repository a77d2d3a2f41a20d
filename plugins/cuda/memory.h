// Device memory beyond the raw allocation (GpuBackend::allocate, memory.cpp):
// pinned staging for host-to-device copies (memory_staging.cpp), and temporary
// device memory for kernels and libraries (Workspace, over the per-device
// pools of memory_workspaces.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu.h"
#include "plexus/plugin.h"

namespace plexus::gpu {

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

// The blocks behind Workspace: handed out per call and reused once the work
// that used them is done, which an event recorded on the user's stream tells.
class Workspaces {
 public:
  explicit Workspaces(int32_t devices);
  ~Workspaces();  // waits for the device, then frees every block
  Workspaces(const Workspaces&) = delete;
  Workspaces& operator=(const Workspaces&) = delete;

  // A block of at least n bytes that no unfinished work other than earlier
  // work on `stream` uses. Throws sdk::Error(OUT_OF_MEMORY) when none can be had.
  void* acquire(int32_t device, gpuStream_t stream, size_t n, size_t* size);
  // Gives the block back; work queued on `stream` so far may still use it.
  void release(int32_t device, gpuStream_t stream, void* ptr);

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;
    gpuEvent_t done = nullptr;     // recorded on `stream` at release
    gpuStream_t stream = nullptr;  // where it was last used
    bool busy = false;
  };
  struct Pool {
    std::mutex mutex;
    std::vector<Block> blocks;
  };
  Block* find(Pool& pool, gpuStream_t stream, size_t n);
  void* grow(int32_t device, Pool& pool, size_t n, size_t* size);

  std::vector<std::unique_ptr<Pool>> pools_;  // per device
};

// Pinned host buffers for asynchronous host-to-device copies. A copy from
// pageable memory would make the runtime wait for the stream's earlier work
// (CUDA synchronizes before such a copy); copying through a pinned chunk
// instead costs a host memcpy and lets the caller go on while the DMA runs.
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
