// The "nccl" communication backend: collectives on cuda tensors where they
// are, with NCCL, one communicator per rank and GPU.
//
// - NCCL is opened at run time (dlopen of libnccl.so.2, or the file
//   PLEXUS_NCCL_LIBRARY names, or the toolkit's copy found at configure
//   time), so libplexus-distributed loads on machines without it and only a
//   group that uses NCCL needs it. The CUDA runtime is linked statically,
//   as in the cuda plugin: only the driver is needed at run time.
// - The communicator is made on the first operation, for the GPU that
//   tensor lives on (found from its address): rank 0 asks NCCL for a unique
//   id and sends it to the others through the group's MPI backend. Every
//   rank issues collectives in the same order, so they all make it in the
//   same operation.
// - The process group hands over device buffers whose producing work has
//   finished (it synchronizes the plugin's stream when it issues the
//   operation). Each operation runs on a stream of this backend's own, and
//   the worker thread polls it to completion, watching NCCL's asynchronous
//   error (a peer that died fails the operation instead of hanging it).
// - Point to point: NCCL has no tags and cannot tell a receiver that a
//   message is larger than its buffer, so a send first tells the receiver
//   its count and dtype through MPI (under the user's tag, so tags match as
//   they do for MPI) and the receiver answers whether it accepts. A mismatch
//   fails on both ranks with the same message; nothing hangs.
#include <dlfcn.h>
#include <nccl.h>
#include <cuda_runtime.h>

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "internal.h"
#include "plexus/env.h"
#include "plexus/error.h"

#ifndef PLEXUS_NCCL_DEFAULT_LIBRARY
#define PLEXUS_NCCL_DEFAULT_LIBRARY ""
#endif

namespace plexus::distributed::detail {
namespace {

// NCCL's entry points, resolved from the library at run time.
struct Nccl {
  void* handle = nullptr;
  std::string path, error;
  int version = 0;
#define PLEXUS_NCCL_FN(name) decltype(&::name) name = nullptr
  PLEXUS_NCCL_FN(ncclGetVersion);
  PLEXUS_NCCL_FN(ncclGetUniqueId);
  PLEXUS_NCCL_FN(ncclCommInitRank);
  PLEXUS_NCCL_FN(ncclCommDestroy);
  PLEXUS_NCCL_FN(ncclCommAbort);
  PLEXUS_NCCL_FN(ncclCommGetAsyncError);
  PLEXUS_NCCL_FN(ncclGetErrorString);
  PLEXUS_NCCL_FN(ncclGetLastError);
  PLEXUS_NCCL_FN(ncclAllReduce);
  PLEXUS_NCCL_FN(ncclBroadcast);
  PLEXUS_NCCL_FN(ncclAllGather);
  PLEXUS_NCCL_FN(ncclReduceScatter);
  PLEXUS_NCCL_FN(ncclSend);
  PLEXUS_NCCL_FN(ncclRecv);
  PLEXUS_NCCL_FN(ncclGroupStart);
  PLEXUS_NCCL_FN(ncclGroupEnd);
#undef PLEXUS_NCCL_FN
};

template <typename F>
bool resolve(Nccl& n, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(n.handle, name));
  if (!fn) n.error = fmt::format("{} has no symbol {}", n.path, name);
  return fn != nullptr;
}

const Nccl& nccl() {
  static const Nccl lib = [] {
    Nccl n;
    std::vector<std::string> tried;
    std::vector<std::string> candidates;
    if (std::optional<std::string> p = env_var("PLEXUS_NCCL_LIBRARY"); p && !p->empty())
      candidates.push_back(*p);
    candidates.push_back("libnccl.so.2");
    if (std::string d = PLEXUS_NCCL_DEFAULT_LIBRARY; !d.empty()) candidates.push_back(d);
    for (const std::string& c : candidates) {
      if ((n.handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        n.path = c;
        break;
      }
      const char* why = dlerror();
      tried.push_back(fmt::format("{} ({})", c, why ? why : "not found"));
    }
    if (!n.handle) {
      n.error = fmt::format("libnccl could not be opened: tried {}; set PLEXUS_NCCL_LIBRARY to "
                            "its path",
                            fmt::join(tried, ", "));
      return n;
    }
    bool ok = resolve(n, n.ncclGetVersion, "ncclGetVersion") &&
              resolve(n, n.ncclGetUniqueId, "ncclGetUniqueId") &&
              resolve(n, n.ncclCommInitRank, "ncclCommInitRank") &&
              resolve(n, n.ncclCommDestroy, "ncclCommDestroy") &&
              resolve(n, n.ncclCommAbort, "ncclCommAbort") &&
              resolve(n, n.ncclCommGetAsyncError, "ncclCommGetAsyncError") &&
              resolve(n, n.ncclGetErrorString, "ncclGetErrorString") &&
              resolve(n, n.ncclAllReduce, "ncclAllReduce") &&
              resolve(n, n.ncclBroadcast, "ncclBroadcast") &&
              resolve(n, n.ncclAllGather, "ncclAllGather") &&
              resolve(n, n.ncclReduceScatter, "ncclReduceScatter") &&
              resolve(n, n.ncclSend, "ncclSend") && resolve(n, n.ncclRecv, "ncclRecv") &&
              resolve(n, n.ncclGroupStart, "ncclGroupStart") &&
              resolve(n, n.ncclGroupEnd, "ncclGroupEnd");
    if (!ok) return n;
    // Optional (NCCL 2.13 and later): the last error's text.
    n.ncclGetLastError =
        reinterpret_cast<decltype(n.ncclGetLastError)>(dlsym(n.handle, "ncclGetLastError"));
    n.ncclGetVersion(&n.version);
    // ncclAvg and bfloat16 arrived in NCCL 2.10.
    if (n.version < 21000) n.error = fmt::format("{} is NCCL {}; plexus needs 2.10 or later", n.path, n.version);
    return n;
  }();
  return lib;
}

std::string version_text(int code) {
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch (since 2.9).
  return fmt::format("NCCL {}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

void check_cuda(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  fail(ErrorCode::DeviceError, "{} failed: {} ({})", call, cudaGetErrorString(e),
       cudaGetErrorName(e));
}

int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// The type NCCL reduces a dtype as; Bool reduces as bytes with max (or) and
// min (and). int16 has no NCCL type: reductions of it are refused.
std::optional<ncclDataType_t> reduce_type(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8: return ncclUint8;
    case DType::I8: return ncclInt8;
    case DType::I16: return std::nullopt;
    case DType::I32: return ncclInt32;
    case DType::I64: return ncclInt64;
    case DType::F16: return ncclFloat16;
    case DType::BF16: return ncclBfloat16;
    case DType::F32: return ncclFloat32;
    case DType::F64: return ncclFloat64;
  }
  return std::nullopt;
}

ncclRedOp_t reduce_op(DType t, ReduceOp op) {
  if (t == DType::Bool) return op == ReduceOp::Min ? ncclMin : ncclMax;
  switch (op) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Average: return ncclAvg;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Min: return ncclMin;
  }
  return ncclSum;
}

class NcclBackend final : public CommBackend {
 public:
  NcclBackend(CommBackend& world, int rank, int size) : world_(world), rank_(rank), size_(size) {
    const Nccl& n = nccl();
    PLEXUS_CHECK(n.error.empty(), ErrorCode::Unsupported, "the nccl backend: {}", n.error);
  }
  ~NcclBackend() override {
    for (auto& [device, c] : comms_) {
      cudaSetDevice(device);
      ncclResult_t async = ncclSuccess;
      nccl().ncclCommGetAsyncError(c.comm, &async);
      if (async == ncclSuccess && !abandoned_) {
        nccl().ncclCommDestroy(c.comm);
      } else {
        nccl().ncclCommAbort(c.comm);
      }
      cudaStreamDestroy(c.stream);
    }
  }

  std::string name() const override { return "nccl"; }
  bool serves(DeviceType type) const override { return device_type_name(type) == "cuda"; }

  void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op) override {
    if (count == 0) return;
    ncclDataType_t t = reduction_type(dtype, "all_reduce");
    Comm& c = comm_for(data);
    run(c, "ncclAllReduce", [&] {
      return nccl().ncclAllReduce(data, data, size_t(count), t, reduce_op(dtype, op), c.comm,
                                  c.stream);
    });
  }
  void broadcast(void* data, int64_t count, DType dtype, int root) override {
    if (count == 0) return;
    Comm& c = comm_for(data);
    run(c, "ncclBroadcast", [&] {
      return nccl().ncclBroadcast(data, data, bytes(count, dtype), ncclUint8, root, c.comm,
                                  c.stream);
    });
  }
  void all_gather(const void* in, void* out, int64_t count, DType dtype) override {
    if (count == 0) return;
    Comm& c = comm_for(in);
    run(c, "ncclAllGather", [&] {
      return nccl().ncclAllGather(in, out, bytes(count, dtype), ncclUint8, c.comm, c.stream);
    });
  }
  void reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceOp op) override {
    if (count == 0) return;
    ncclDataType_t t = reduction_type(dtype, "reduce_scatter");
    Comm& c = comm_for(in);
    run(c, "ncclReduceScatter", [&] {
      return nccl().ncclReduceScatter(in, out, size_t(count), t, reduce_op(dtype, op), c.comm,
                                      c.stream);
    });
  }
  // NCCL has no barrier; the group's MPI backend has one.
  void barrier() override { world_.barrier(); }

  void send(const void* data, int64_t count, DType dtype, int dst, int tag) override {
    int64_t header[2] = {count, int64_t(dtype)};
    world_.send(header, 2, DType::I64, dst, tag);
    int64_t accepted = 0;
    world_.recv(&accepted, 1, DType::I64, dst, tag);
    PLEXUS_CHECK(accepted == 1, ErrorCode::InvalidArgument,
                 "send to rank {} (tag {}): {} {} elements, but the receiving tensor {}", dst, tag,
                 count, dtype_name(dtype),
                 accepted == 0 ? "has another element count" : "has another dtype");
    if (count == 0) return;
    Comm& c = comm_for(data);
    run(c, "ncclSend", [&] {
      return nccl().ncclSend(data, bytes(count, dtype), ncclUint8, dst, c.comm, c.stream);
    });
  }
  void recv(void* data, int64_t count, DType dtype, int src, int tag) override {
    int64_t header[2] = {0, 0};
    world_.recv(header, 2, DType::I64, src, tag);
    int64_t accepted = header[0] != count ? 0 : header[1] != int64_t(dtype) ? 2 : 1;
    world_.send(&accepted, 1, DType::I64, src, tag);
    PLEXUS_CHECK(accepted != 0, ErrorCode::InvalidArgument,
                 "recv from rank {} (tag {}): got {} elements, the receiving tensor has {}", src,
                 tag, header[0], count);
    PLEXUS_CHECK(accepted != 2, ErrorCode::InvalidArgument,
                 "recv from rank {} (tag {}): the message is {}, the receiving tensor is {}", src,
                 tag, dtype_name(DType(header[1])), dtype_name(dtype));
    if (count == 0) return;
    Comm& c = comm_for(data);
    run(c, "ncclRecv", [&] {
      return nccl().ncclRecv(data, bytes(count, dtype), ncclUint8, src, c.comm, c.stream);
    });
  }

 private:
  struct Comm {
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
  };

  static size_t bytes(int64_t count, DType dtype) { return size_t(count) * itemsize(dtype); }

  ncclDataType_t reduction_type(DType dtype, const char* what) const {
    std::optional<ncclDataType_t> t = reduce_type(dtype);
    PLEXUS_CHECK(t.has_value(), ErrorCode::Unsupported,
                 "{} of {} tensors on the nccl backend: NCCL has no {} type; reduce them on the "
                 "mpi backend (ProcessGroupOptions::backends {{\"cuda\", \"mpi\"}} or "
                 "PLEXUS_DIST_BACKENDS=cuda=mpi) or in another dtype",
                 what, dtype_name(dtype), dtype_name(dtype));
    return *t;
  }

  // The communicator of the GPU `ptr` lives on, made on first use.
  Comm& comm_for(const void* ptr) {
    cudaPointerAttributes attr{};
    cudaError_t e = cudaPointerGetAttributes(&attr, ptr);
    if (e != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
      (void)cudaGetLastError();
      fail(ErrorCode::InvalidArgument,
           "the nccl backend was given memory that is not on a GPU ({}); it serves cuda tensors",
           e != cudaSuccess ? cudaGetErrorString(e) : "host memory");
    }
    int device = attr.device;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    auto it = comms_.find(device);
    if (it != comms_.end()) return it->second;
    // Every rank reaches its first operation on a new GPU together.
    ncclUniqueId id{};
    if (rank_ == 0) check(nccl().ncclGetUniqueId(&id), nullptr, "ncclGetUniqueId");
    world_.broadcast(&id, int64_t(sizeof id), DType::U8, 0);
    Comm c;
    check_cuda(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    ncclResult_t r = nccl().ncclCommInitRank(&c.comm, size_, id, rank_);
    if (r != ncclSuccess) {
      cudaStreamDestroy(c.stream);
      check(r, nullptr,
            "ncclCommInitRank (NCCL needs a GPU of its own for each rank; ranks that share a "
            "GPU can use the mpi backend: PLEXUS_DIST_BACKENDS=cuda=mpi)");
    }
    return comms_.emplace(device, c).first->second;
  }

  void check(ncclResult_t r, ncclComm_t comm, const char* call) {
    if (r == ncclSuccess) return;
    const char* last = comm && nccl().ncclGetLastError ? nccl().ncclGetLastError(comm) : nullptr;
    fail(ErrorCode::DeviceError, "{} failed on rank {}: {}{}{}", call, rank_,
         nccl().ncclGetErrorString(r), last && *last ? ": " : "", last ? last : "");
  }

  // Enqueues one NCCL call and waits for it, watching for NCCL's
  // asynchronous errors (a peer that died) while it waits.
  template <typename F>
  void run(Comm& c, const char* call, F enqueue) {
    check(enqueue(), c.comm, call);
    for (int spins = 0;; ++spins) {
      cudaError_t e = cudaStreamQuery(c.stream);
      if (e == cudaSuccess) return;
      if (e != cudaErrorNotReady) {
        abandoned_ = true;
        check_cuda(e, call);
      }
      ncclResult_t async = ncclSuccess;
      nccl().ncclCommGetAsyncError(c.comm, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        abandoned_ = true;
        check(async, c.comm, call);
      }
      if (spins < 64)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  CommBackend& world_;
  int rank_, size_;
  std::map<int, Comm> comms_;
  bool abandoned_ = false;  // a communicator failed: abort instead of destroying
};

}  // namespace

CommBackendInfo nccl_info() {
  CommBackendInfo info{"nccl", "", "cuda directly (one GPU per rank)", false};
  const Nccl& n = nccl();
  if (!n.error.empty()) {
    info.version = n.error;
    return info;
  }
  int gpus = gpu_count();
  info.version = fmt::format("{} ({}){}", version_text(n.version), n.path,
                             gpus ? fmt::format(", {} GPU{}", gpus, gpus == 1 ? "" : "s")
                                  : ": no GPU visible to the CUDA runtime");
  info.available = gpus > 0;
  return info;
}

std::unique_ptr<CommBackend> make_nccl_backend(CommBackend& world, int rank, int size) {
  return std::make_unique<NcclBackend>(world, rank, size);
}

}  // namespace plexus::distributed::detail
