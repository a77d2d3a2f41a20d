// What the SIMT runtime's files share: stream queues, the sticky launch
// failure and the per-thread last error. Not for kernels or plugin code.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "launch.h"
#include "runtime.h"

namespace simt {

// An ordered queue of work with its own worker thread.
struct Stream {
  std::mutex mutex;
  std::condition_variable changed;
  struct Work {
    std::function<void()> run;
    bool always;  // bookkeeping (event markers) that runs even after a launch failure
  };
  std::deque<Work> queue;
  uint64_t submitted = 0, completed = 0;
  bool stopping = false;
  std::thread worker;
};

namespace detail {

// Returns e after recording it as this thread's last error (when not success).
simtError_t fail(simtError_t e);
// The device's memory in bytes (PLEXUS_SIMT_DEVICE_MEMORY, else the host's)
// and the bytes simtMalloc has handed out.
size_t device_memory();
size_t device_memory_used();
// The sticky failure of work that already ran ("" when none); once set, every
// call returns simtErrorLaunchFailure.
bool has_launch_failure();
void set_launch_failure(const std::string& message);
const char* launch_failure_message();

// stream, or the NULL stream's queue; nullptr for a handle that is not live.
Stream* resolve(simtStream_t stream);
// Queues work; it is skipped once a launch failure is sticky, unless always.
void enqueue(Stream& s, std::function<void()> work, bool always = false);
// Waits until everything queued on s so far has run.
void drain(Stream& s);
// Keeps this library mapped: its worker threads outlive calls into it.
void stay_resident();

// Runs a whole grid on the block pool; returns "" or what went wrong.
std::string run_grid(const LaunchConfig& config, int warp_size, const KernelBody& body);
// Runs one block on the calling OS thread; returns "" or what went wrong.
std::string run_block(const LaunchConfig& config, uint3 block_index, int warp_size,
                      const KernelBody& body);

}  // namespace detail

}  // namespace simt
