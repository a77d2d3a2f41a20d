// Fault cases for the distributed ctests, one per run under mpirun -np 2:
//   hang          rank 1 never joins rank 0's all_reduce (it sleeps)
//   exit          rank 1 exits at once, cleanly, without joining
//   crash         rank 1 aborts (SIGABRT) while rank 0 waits in all_reduce
//   cannot_serve  (one process) a backend is named for a device type it cannot serve
// In every case the job must end with an error that says what happened.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "plexus/device.h"
#include "plexus/distributed.h"
#include "plexus/error.h"
#include "plexus/factories.h"

using namespace plexus;
using namespace plexus::distributed;

namespace {

// A backend that reads cpu memory only and does not stage.
class HostOnly final : public CommBackend {
 public:
  std::string name() const override { return "hostonly"; }
  bool serves(DeviceType type) const override { return type == kCPU; }
  void all_reduce(void*, int64_t, DType, ReduceOp) override {}
  void broadcast(void*, int64_t, DType, int) override {}
  void all_gather(const void*, void*, int64_t, DType) override {}
  void reduce_scatter(const void*, void*, int64_t, DType, ReduceOp) override {}
  void barrier() override {}
  void send(const void*, int64_t, DType, int, int) override {}
  void recv(void*, int64_t, DType, int, int) override {}
};

int run(const char* mode) {
  if (std::strcmp(mode, "cannot_serve") == 0) {
    register_device_type("simt");
    register_comm_backend({"hostonly", "test", "cpu", true},
                          [](CommBackend&, int, int) { return std::make_unique<HostOnly>(); });
    init_process_group({.backends = {{"simt", "hostonly"}}});
    std::fprintf(stderr, "the group was made: the check is missing\n");
    return 1;
  }
  if (std::strcmp(mode, "bad_backends_env") == 0) {
    setenv("PLEXUS_DIST_BACKENDS", "cuda=nccl,simt", 1);
    init_process_group();
    std::fprintf(stderr, "the group was made: PLEXUS_DIST_BACKENDS is not checked\n");
    return 1;
  }
  if (std::strcmp(mode, "nccl_serves_cuda_only") == 0) {
    init_process_group({.backends = {{"cpu", "nccl"}}});
    std::fprintf(stderr, "the group was made: nccl was accepted for cpu tensors\n");
    return 1;
  }
  ProcessGroup& pg = init_process_group({.timeout = std::chrono::seconds(2)});
  if (pg.size() != 2) {
    std::fprintf(stderr, "run under mpirun -np 2\n");
    return 1;
  }
  Tensor t = zeros({1000});
  if (pg.rank() == 1) {
    if (std::strcmp(mode, "hang") == 0) std::this_thread::sleep_for(std::chrono::seconds(40));
    if (std::strcmp(mode, "crash") == 0) std::abort();
    return 0;  // exit: leaves without joining
  }
  if (std::strcmp(mode, "crash") == 0) {
    // Long enough that only mpirun ending the job can stop it in time.
    std::this_thread::sleep_for(std::chrono::seconds(40));
    return 1;
  }
  pg.all_reduce(t);
  std::fprintf(stderr, "all_reduce returned without rank 1\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: plexus-distributed-faults hang|exit|crash|cannot_serve|bad_backends_env|"
                 "nccl_serves_cuda_only\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const Error& e) {
    std::fprintf(stderr, "plexus-distributed-faults: %s\n", e.what());
    return 1;
  }
}
