// Streams, command batches and events.
//
// A stream records its work into an open batch (one command buffer with its
// own pool, fence and staging arena); the batch is submitted when the host
// needs a result (a copy to host), on synchronize, when an event is recorded
// on it, or when it fills up. Each stream has a timeline semaphore whose value
// counts its submitted batches: an event is (semaphore, value), waiting for it
// on another stream is a semaphore wait on that stream's next submission.
// Every command is preceded by a full memory barrier, so commands run in
// recorded order, after everything submitted earlier to the queue.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "arena.h"

namespace plexus::vulkan {

struct Batch {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::unique_ptr<Arena> arena;
  uint64_t serial = 0;  // device-wide order of first use; 0 while empty
  uint32_t commands = 0;
};

struct Stream {
  std::mutex mu;  // guards everything below; held while recording
  Batch* open = nullptr;
  VkSemaphore timeline = VK_NULL_HANDLE;
  uint64_t submitted = 0;  // timeline value the last submitted batch signals
  std::vector<std::pair<VkSemaphore, uint64_t>> waits;  // for the next submission
};

struct Event {
  std::mutex mu;
  VkSemaphore semaphore = VK_NULL_HANDLE;  // null: never recorded (complete)
  uint64_t value = 0;
};

}  // namespace plexus::vulkan
