// The fixed cases plexus-bench runs, and the peers measured beside them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plexus/device.h"

namespace plexus::bench {

// One timed operation; its tensors are made once, before timing.
using Op = std::function<void()>;

// A peer's operation, and how to wait for the work it queued (empty: the work
// is done when the operation returns, as on the host).
struct PeerOp {
  Op op;
  std::function<void()> sync;
};

// The same work done outside plexus: on the host for the cpu device (peers.h),
// through CUDA and cuBLAS directly for a cuda device (cuda_peers.h).
struct Peer {
  std::string name;               // e.g. "onednn_direct"
  std::function<PeerOp()> setup;  // makes the buffers, returns the operation
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
