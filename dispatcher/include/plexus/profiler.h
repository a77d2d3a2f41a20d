// The profiler layer: per-op call counts and time, switched on and off at run time.
//
// PLEXUS_PROFILE=DIR profiles a whole process without changing it: when the
// dispatcher starts, the profiler is switched on, and at exit (return from
// main or exit(); not a crash or _exit) the records are written to
// DIR/plexus-profile-<pid>.json as
//   {"pid": 123, "records": [{"op": "add.Tensor", "device": "cpu", "calls": 3,
//                             "total_ns": 5100, "fallbacks": 0, "backward": false}, ...]}
// Ops that autograd's backward pass dispatches are recorded apart from the
// same ops in the forward ("backward": true), and each backward node's own
// time is a record of its own, named after the node ("MulBackward").
// `plexus profile PROGRAM` sets it, runs the program and prints the records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plexus/device.h"

namespace plexus::profiler {

// One op on one device.
struct Record {
  std::string op;      // "add.Tensor"
  std::string device;  // "cpu"
  uint64_t calls = 0;
  uint64_t total_ns = 0;  // wall time including nested ops and synchronous copies
  uint64_t fallbacks = 0; // calls that ran on the cpu because the device lacked a kernel
  bool backward = false;  // dispatched by autograd's backward pass, or a backward node's time
};

// While alive, what this thread records counts as backward work (autograd's
// engine holds one while it runs a backward pass). Nests.
class BackwardScope {
 public:
  BackwardScope();
  ~BackwardScope();
  BackwardScope(const BackwardScope&) = delete;
  BackwardScope& operator=(const BackwardScope&) = delete;

 private:
  bool prev_;
};
// True inside a BackwardScope on this thread.
bool in_backward();

// Starts or stops recording on all threads (the profiler layer's key).
void enable(bool on);
bool enabled();
// Records one run of work that does not pass the dispatcher's layers, while
// the profiler is on: a compiled graph's steps ("compiled addmm.out",
// "compiled fused(lerp_, mul_, ...)", a backward node "MulBackward").
void record(std::string_view name, Device device, uint64_t ns);
// Forgets everything recorded.
void reset();
// What was recorded, ordered by total time, longest first.
std::vector<Record> records();
// A table: op, device, pass (forward or backward), calls, total ms, mean us, fallbacks.
std::string report();
// The records as the JSON of a PLEXUS_PROFILE file.
std::string records_json();

}  // namespace plexus::profiler
