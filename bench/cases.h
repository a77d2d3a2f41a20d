// The fixed cases plexus-bench runs, and the peers measured beside them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plexus/device.h"

namespace plexus::bench {

// One timed operation; its tensors are made once, before timing.
using Op = std::function<void()>;

// The same work done outside plexus, on the host (run only for the cpu device).
struct Peer {
  std::string name;           // e.g. "onednn_direct"
  std::function<Op()> setup;  // makes the buffers, returns the operation
};

struct Case {
  std::string name;
  double bytes;  // bytes moved per operation; 0 where GB/s does not apply
  double flops;  // floating-point operations per operation; 0 where GFLOP/s does not apply
  std::function<Op(Device)> setup;
  std::vector<Peer> peers;
};

// Every case, in the order they are printed.
std::vector<Case> cases();

}  // namespace plexus::bench
