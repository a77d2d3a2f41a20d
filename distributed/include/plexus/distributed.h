// Data-parallel training across processes: a process group over the ranks
// `mpirun` starts, collectives on tensors, and DistributedDataParallel.
//
//   // mpirun -np 2 ./train
//   distributed::ProcessGroup& pg = distributed::init_process_group();
//   Tensor t = full({4}, pg.rank());
//   pg.all_reduce(t);                          // every rank: 0 + 1 = 1
//   auto w = pg.all_reduce_async(t, distributed::ReduceOp::Max);
//   w->wait();                                 // throws on a timeout or a mismatch
//
// plexus does not invent a transport. Communication backends run the
// collectives on engines clusters already have: "mpi" (Open MPI, any device:
// tensors outside host memory go through host staging, because Debian's
// Open MPI is not GPU-aware) and "nccl" for cuda tensors where it is built.
// The backend is chosen per device type, like device backends.
//
// Every operation of a group runs in the order it was issued, on one worker
// thread: an async collective returns at once and overlaps with what the
// caller does next (DDP all-reduces gradients while backward still runs).
// Faults fail loudly instead of hanging: an operation that does not complete
// within `timeout` throws, naming it, and the group is broken from then on;
// at exit a broken group aborts the job (MPI_Abort), so mpirun ends the ranks
// still waiting. With `check_consistency`, each collective first compares
// what every rank passed (dtype, shape, op, root) and all ranks throw an error
// naming the ranks that differ, instead of exchanging garbage.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plexus/nn.h"
#include "plexus/tensor.h"

namespace plexus::distributed {

enum class ReduceOp : uint8_t { Sum, Average, Max, Min };
// "sum", "average", "max", "min".
std::string_view reduce_op_name(ReduceOp op);

// An operation in flight. wait() blocks until it completed (and copied its
// result back into the caller's tensors), throws plexus::Error if it failed
// or did not complete within the group's timeout. wait() again is a no-op.
class Work {
 public:
  virtual ~Work() = default;
  virtual bool is_completed() const = 0;
  virtual void wait() = 0;
  // Seconds the backend spent on the operation itself (0 until completed).
  virtual double seconds() const = 0;
};
using WorkPtr = std::shared_ptr<Work>;

// A communication backend as the process group sees it (the interface
// in-tree backends implement; not part of the plugin C ABI). Calls arrive
// one at a time on the group's worker thread, with contiguous buffers in the
// memory the backend said it serves, and block until done. Device buffers
// arrive with the work that produced them finished (the group synchronizes
// the issuing thread's stream of that device first).
class CommBackend {
 public:
  virtual ~CommBackend() = default;
  // "mpi", "nccl".
  virtual std::string name() const = 0;
  // Whether it reads and writes memory of this device type directly.
  virtual bool serves(DeviceType type) const = 0;
  // Whether tensors of the device types it does not serve may go through
  // host memory (which it must serve) instead.
  virtual bool host_staging() const { return false; }
  virtual void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op) = 0;
  virtual void broadcast(void* data, int64_t count, DType dtype, int root) = 0;
  // out holds size() blocks of `count` elements, rank r's input in block r.
  virtual void all_gather(const void* in, void* out, int64_t count, DType dtype) = 0;
  // in holds size() blocks of `count`; rank r gets the reduction of block r.
  virtual void reduce_scatter(const void* in, void* out, int64_t count, DType dtype,
                              ReduceOp op) = 0;
  virtual void barrier() = 0;
  virtual void send(const void* data, int64_t count, DType dtype, int dst, int tag) = 0;
  virtual void recv(void* data, int64_t count, DType dtype, int src, int tag) = 0;
};

// The communication backends this build knows, for `plexus devices` and
// `plexus doctor`: name, library version, the device types it serves and how.
struct CommBackendInfo {
  std::string name;
  std::string version;   // "Open MPI v4.1.4, ..." or why it is unavailable
  std::string serves;    // "cpu directly; every other device through host staging"
  bool available = false;
};
std::vector<CommBackendInfo> comm_backends();

// Makes a backend for the ranks of a new group; it may bootstrap through
// `world`, the group's MPI backend (NCCL sends its unique id that way).
using CommBackendFactory =
    std::function<std::unique_ptr<CommBackend>(CommBackend& world, int rank, int size)>;
// Adds a backend that ProcessGroupOptions::backends may name (the built-in
// ones: "mpi", and "nccl" where built). Replaces one of the same name.
void register_comm_backend(CommBackendInfo info, CommBackendFactory factory);

struct ProcessGroupOptions {
  // How long one operation may take before it fails (a rank died or hangs).
  // The default is PLEXUS_DIST_TIMEOUT (seconds) when set, else 300 s.
  std::chrono::milliseconds timeout{0};
  // Compare dtypes, shapes and arguments across ranks before each collective
  // (one small all-gather). Default: on in debug builds, else PLEXUS_DIST_CHECK=1.
  std::optional<bool> check_consistency;
  // Backend per device type name ("cuda" -> "mpi"). Types not named here
  // take PLEXUS_DIST_BACKENDS ("cuda=mpi,npu=mine"), then "nccl" for cuda
  // where every rank can run it, else "mpi". The types must be registered
  // (plugins loaded, e.g. by a Runtime) before the group is made.
  std::map<std::string, std::string> backends;
};

class ProcessGroup {
 public:
  // Use init_process_group(); `world` is the bootstrap backend (MPI) that
  // knows the ranks and runs the consistency checks.
  ProcessGroup(std::unique_ptr<CommBackend> world, int rank, int size, ProcessGroupOptions options);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // In place: every rank's tensor becomes the reduction over all ranks.
  // Average is for floating tensors.
  WorkPtr all_reduce_async(const Tensor& t, ReduceOp op = ReduceOp::Sum);
  void all_reduce(const Tensor& t, ReduceOp op = ReduceOp::Sum) { all_reduce_async(t, op)->wait(); }
  // In place: every rank's tensor becomes root's.
  WorkPtr broadcast_async(const Tensor& t, int root = 0);
  void broadcast(const Tensor& t, int root = 0) { broadcast_async(t, root)->wait(); }
  // out's dim 0 is size() times in's; rank r's `in` lands at rows r*n .. (r+1)*n.
  WorkPtr all_gather_async(const Tensor& out, const Tensor& in);
  void all_gather(const Tensor& out, const Tensor& in) { all_gather_async(out, in)->wait(); }
  // A new tensor [size(), *in.sizes()] of every rank's `in`.
  Tensor all_gather(const Tensor& in);
  // in's dim 0 is size() times out's; rank r gets the reduction of rows r*n .. (r+1)*n.
  WorkPtr reduce_scatter_async(const Tensor& out, const Tensor& in, ReduceOp op = ReduceOp::Sum);
  void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op = ReduceOp::Sum) {
    reduce_scatter_async(out, in, op)->wait();
  }
  WorkPtr barrier_async();
  void barrier() { barrier_async()->wait(); }
  // Point to point: `t` goes to rank dst / arrives from rank src into `t`
  // (same dtype and element count on both sides; tags tell messages apart).
  WorkPtr send_async(const Tensor& t, int dst, int tag = 0);
  void send(const Tensor& t, int dst, int tag = 0) { send_async(t, dst, tag)->wait(); }
  WorkPtr recv_async(const Tensor& t, int src, int tag = 0);
  void recv(const Tensor& t, int src, int tag = 0) { recv_async(t, src, tag)->wait(); }

  // The name of the backend serving tensors of this device type.
  std::string backend_for(DeviceType type) const;
  std::chrono::milliseconds timeout() const;
  bool checks_consistency() const;
  // Operations issued so far (errors name an operation by its number).
  uint64_t operations() const;
  // Set when an operation failed in a way the ranks cannot recover from (a
  // timeout): every later operation throws this message.
  std::string broken() const;

  struct Impl;

 private:
  int rank_, size_;
  std::unique_ptr<Impl> impl_;
};

// The process group of this process, made on the first call from the
// environment mpirun sets up (rank and size come from MPI; a program started
// without mpirun is rank 0 of 1). Later calls return the same group and
// must not pass different options.
ProcessGroup& init_process_group(ProcessGroupOptions options = {});
bool is_initialized();
// The group init_process_group made; throws if there is none.
ProcessGroup& default_group();

// Splits `n` samples across the ranks for one epoch (PyTorch's
// DistributedSampler): shuffled with `seed + epoch` when `shuffle` (the same
// order on every rank), padded by repeating the first indices so every rank
// gets the same count (or, with drop_last, cut to a multiple of the world).
// Rank r takes every size-th index starting at r.
std::vector<int64_t> distributed_indices(int64_t n, int rank, int world, uint64_t epoch,
                                         bool shuffle = true, uint64_t seed = 0,
                                         bool drop_last = false);

struct DDPOptions {
  // Gradients are all-reduced in buckets of about this many bytes (the last
  // parameters first, the order backward produces their gradients).
  size_t bucket_bytes = size_t(25) << 20;
  // Broadcast the parameters from rank 0 when wrapping, so all ranks start equal.
  bool broadcast_parameters = true;
};

// What DDP's gradient synchronization cost, summed since construction.
struct DDPStats {
  uint64_t synced_steps = 0;
  uint64_t buckets_reduced = 0;
  uint64_t buckets_launched_early = 0;  // while backward still ran (overlapped)
  double comm_seconds = 0;     // the all-reduces themselves, on the worker
  double exposed_seconds = 0;  // what backward's end waited for them
};

// Wraps a module for data-parallel training: every rank runs forward and
// backward on its own shard of the batch; during backward, each bucket of
// gradients is averaged across ranks as soon as all its gradients exist, so
// communication overlaps the rest of backward; when backward returns, every
// rank's grad() holds the average. Parameters that got no gradient on this
// rank count as zeros. Inside no_sync(), gradients only accumulate locally;
// the first backward after it averages the accumulated sums.
class DistributedDataParallel : public nn::Module {
 public:
  DistributedDataParallel(std::shared_ptr<nn::Module> module, ProcessGroup& group,
                          DDPOptions options = {});
  ~DistributedDataParallel() override;
  Tensor forward(const Tensor& input) override;
  nn::Module& module() { return *module_; }

  // While alive, backward passes do not synchronize gradients.
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& ddp);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool prev_;
  };
  NoSync no_sync() { return NoSync(*this); }

  DDPStats stats() const;
  // The buckets: parameter names of each, in reduction order.
  std::vector<std::vector<std::string>> buckets() const;

 private:
  struct State;
  std::shared_ptr<nn::Module> module_;
  std::shared_ptr<State> state_;
};

}  // namespace plexus::distributed
