// Temporary device memory for kernels and libraries (context.h's Workspace):
// blocks handed out per call and reused once the work that used them is
// done, which an event recorded on the user's stream tells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu.h"

namespace plexus::gpu {

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

}  // namespace plexus::gpu
