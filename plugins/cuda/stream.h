// Streams: stream_of(call) for kernels, and the default streams, what a NULL
// plexus stream means on each device. (The backend's stream and event
// functions are in stream.cpp.)
//
// `shared` (the default): one stream per device for every host thread, so
// work from all threads is ordered and the core's caching allocator, which
// hands a freed block to any thread, never races the block's earlier work.
// `per_thread`: one stream per device and host thread, so threads' work
// overlaps on the device; only safe while no tensor (and no block of the
// core's cache) passes between threads without a synchronization, because
// the core's cache does not yet track the stream a block was last used on.
// A thread's streams live until shutdown, also after the thread has ended.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu.h"
#include "plexus/plugin.h"

namespace plexus::gpu {

// Makes the call's device current on this thread and returns the stream its
// work goes on: call.stream, or the device's default stream when NULL.
gpuStream_t stream_of(const plexus_kernel_call& call);

class DefaultStreams {
 public:
  enum class Policy { shared, per_thread };
  // Throws sdk::Error(INVALID_ARGUMENT) for a name other than "shared" or "per_thread".
  static Policy parse_policy(const std::string& name);

  DefaultStreams(int32_t devices, Policy policy);
  ~DefaultStreams();  // destroys every stream it created
  DefaultStreams(const DefaultStreams&) = delete;
  DefaultStreams& operator=(const DefaultStreams&) = delete;

  // This thread's default stream on `device` (current on this thread),
  // created on first use. Throws sdk::Error when the runtime cannot create it.
  gpuStream_t get(int32_t device);
  Policy policy() const { return policy_; }

 private:
  gpuStream_t create(int32_t device);
  gpuStream_t per_thread(int32_t device);

  const Policy policy_;
  const uint64_t generation_;  // tells this object's per-thread cache from an earlier one's
  std::mutex mutex_;
  std::vector<std::atomic<gpuStream_t>> shared_;  // per device; nullptr until first use
  std::map<std::pair<std::thread::id, int32_t>, gpuStream_t> threads_;
};

}  // namespace plexus::gpu
