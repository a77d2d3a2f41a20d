// The memory of one simulated device: blocks of host memory that the rest of
// the process only ever sees as opaque handles, as it would a real device's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace toydev {

class Arena {
 public:
  Arena(int32_t device, size_t capacity);

  // A new block of nbytes; throws sdk::Error(OUT_OF_MEMORY) beyond capacity.
  void* allocate(size_t nbytes);
  // Frees a block from allocate; unknown handles are ignored.
  void deallocate(const void* handle);
  // The host address of bytes [offset, offset + nbytes) of block `handle`;
  // throws sdk::Error(INVALID_ARGUMENT) for a handle or range not in this arena.
  std::byte* resolve(const void* handle, size_t offset, size_t nbytes);
  size_t capacity() const { return capacity_; }

 private:
  int32_t device_;
  size_t capacity_;
  std::mutex mutex_;  // guards everything below
  size_t used_ = 0;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, std::vector<std::byte>> blocks_;
};

}  // namespace toydev
