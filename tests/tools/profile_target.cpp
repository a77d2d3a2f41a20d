// plexus-profile-target: a small program for the `plexus profile` tests. It
// calls add 3 times, mul 2 times and sum once, prints "done" and exits.
// Usage: plexus-profile-target [--device D] [--exit N] [--abort]
//   --device D  run the ops on device D (default cpu)
//   --exit N    exit with status N after the ops
//   --abort     abort() after the ops: a crash, so no profile is written
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "plexus/ops.h"
#include "plexus/plugins.h"

int main(int argc, char** argv) {
  std::string device = "cpu";
  int status = 0;
  bool crash = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else if (!std::strcmp(argv[i], "--exit") && i + 1 < argc)
      status = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--abort"))
      crash = true;
    else {
      std::fprintf(stderr, "usage: plexus-profile-target [--device D] [--exit N] [--abort]\n");
      return 2;
    }
  }
  using namespace plexus;
  load_plugins();
  Device dev = Device::parse(device);
  Tensor a = ones({4, 4}, {DType::F32, dev});
  Tensor b = ones({4, 4}, {DType::F32, dev});
  for (int i = 0; i < 3; ++i) a = add(a, b);
  for (int i = 0; i < 2; ++i) a = mul(a, b);
  Tensor s = sum(a);
  std::printf("done\n");
  std::fflush(stdout);
  if (crash) std::abort();
  return status;
}
