// plexus-bench-record: the host time of one kernel call on an asynchronous
// device, i.e. the cost of recording it into the stream's batch, without the
// device's time to run it. Times `calls` 1-element add_out calls (fewer than
// the vulkan plugin's 256 commands per batch, so none submits), then waits
// for the device outside the timed span. Best of `rounds` rounds.
// Usage: plexus-bench-record [DEVICE=vulkan:0] [CALLS=200] [ROUNDS=50]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "plexus/device_backend.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/plugins.h"

using namespace plexus;

int main(int argc, char** argv) {
  std::string name = argc > 1 ? argv[1] : "vulkan:0";
  int calls = argc > 2 ? std::atoi(argv[2]) : 200;
  int rounds = argc > 3 ? std::atoi(argv[3]) : 50;
  load_plugins();
  try {
    Device dev = Device::parse(name);
    DeviceBackend& backend = device_backend(dev.type);
    TensorOptions opt(DType::F32, dev);
    Tensor a = full({1}, 1.0, opt), b = full({1}, 2.0, opt), out = full({1}, 0.0, opt);
    add_out(out, a, b);  // warm-up: the pipeline is built here
    backend.synchronize(dev.index);
    double best = INFINITY;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) add_out(out, a, b);
      auto t1 = std::chrono::steady_clock::now();
      backend.synchronize(dev.index);
      best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    std::printf(
        "add_1elem_out recorded on %s: %.2f us per call (host only; best of %d rounds of %d "
        "calls)\n",
        name.c_str(), best, rounds, calls);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plexus-bench-record: %s\n", e.what());
    return 1;
  }
  return 0;
}
