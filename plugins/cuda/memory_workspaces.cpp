// The pools behind Workspace (Workspaces, memory.h): device blocks per device,
// reused on the same stream at once and on others once their event has fired.
#include <string>

#include "device.h"
#include "errors.h"
#include "memory.h"

namespace plexus::gpu {
namespace {

// Sizes are rounded up to a power of two from 64 KiB, so that a block serves
// later calls of similar size and the pool stays small.
size_t round_size(size_t n) {
  size_t s = size_t{64} << 10;
  while (s < n) s <<= 1;
  return s;
}

}  // namespace

Workspaces::Workspaces(int32_t devices) {
  for (int32_t d = 0; d < devices; ++d) pools_.push_back(std::make_unique<Pool>());
}

Workspaces::~Workspaces() {
  for (size_t d = 0; d < pools_.size(); ++d) {
    if (pools_[d]->blocks.empty()) continue;
    (void)gpuSetDevice(static_cast<int>(d));
    (void)gpuDeviceSynchronize();
    for (Block& b : pools_[d]->blocks) {
      (void)gpuEventDestroy(b.done);
      (void)gpuFree(b.ptr);
    }
  }
}

Workspaces::Block* Workspaces::find(Pool& pool, gpuStream_t stream, size_t n) {
  for (Block& b : pool.blocks) {
    if (b.busy || b.size < n || b.size > 4 * round_size(n)) continue;
    if (b.stream == stream) return &b;  // the stream orders its own work
    if (gpuEventQuery(b.done) == gpuSuccess) return &b;
    (void)gpuGetLastError();
  }
  return nullptr;
}

void* Workspaces::grow(int32_t device, Pool& pool, size_t n, size_t* size) {
  use_device(device);
  Block b;
  b.size = round_size(n);
  gpuError_t e = gpuMalloc(&b.ptr, b.size);
  if (e == gpuErrorMemoryAllocation) {
    // Free the idle blocks (after their work) and try once more.
    (void)gpuGetLastError();
    check_gpu(gpuDeviceSynchronize(), device, PLEXUS_GPU_PREFIX "DeviceSynchronize (workspace)");
    std::erase_if(pool.blocks, [](Block& old) {
      if (old.busy) return false;
      (void)gpuEventDestroy(old.done);
      (void)gpuFree(old.ptr);
      return true;
    });
    e = gpuMalloc(&b.ptr, b.size);
  }
  check_gpu(
      e, device,
      (PLEXUS_GPU_PREFIX "Malloc of a " + std::to_string(b.size) + "-byte workspace").c_str());
  e = gpuEventCreateWithFlags(&b.done, gpuEventDisableTiming);
  if (e != gpuSuccess) {
    (void)gpuFree(b.ptr);
    fail_gpu(e, device, PLEXUS_GPU_PREFIX "EventCreateWithFlags (workspace)");
  }
  b.busy = true;
  pool.blocks.push_back(b);
  *size = b.size;
  return b.ptr;
}

void* Workspaces::acquire(int32_t device, gpuStream_t stream, size_t n, size_t* size) {
  Pool& pool = *pools_.at(static_cast<size_t>(device));
  std::lock_guard lock(pool.mutex);
  if (Block* b = find(pool, stream, n)) {
    b->busy = true;
    *size = b->size;
    return b->ptr;
  }
  return grow(device, pool, n, size);
}

void Workspaces::release(int32_t device, gpuStream_t stream, void* ptr) {
  Pool& pool = *pools_.at(static_cast<size_t>(device));
  std::lock_guard lock(pool.mutex);
  for (Block& b : pool.blocks) {
    if (b.ptr != ptr) continue;
    // Without the event, other streams may take the block only once this
    // stream's work is done, so wait for it here.
    if (gpuEventRecord(b.done, stream) != gpuSuccess) {
      (void)gpuGetLastError();
      (void)gpuStreamSynchronize(stream);
    }
    b.stream = stream;
    b.busy = false;
    return;
  }
}

}  // namespace plexus::gpu
