// The "mpi" communication backend: blocking MPI calls on host memory, over a
// communicator of its own (a duplicate of MPI_COMM_WORLD). Debian's Open MPI
// is not GPU-aware, so it serves cpu memory and the process group stages
// every other device's tensors through the host.
#include <mpi.h>

#include <fmt/format.h>

#include <climits>
#include <cstdio>
#include <mutex>
#include <string>

#include "internal.h"
#include "plexus/error.h"
#include "plexus/dtype_dispatch.h"
#include "plexus/half.h"

namespace plexus::distributed::detail {
namespace {

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail(ErrorCode::DeviceError, "{} failed: {}", call, std::string(text, size_t(len)));
}

// 16-bit floats have no MPI type: they travel as MPI_UINT16_T and reduce with
// user operations that add (or compare) in float and round once per step,
// as a serial loop over the ranks would.
template <typename H, typename F>
void reduce_16(void* in, void* inout, int* len, MPI_Datatype*) {
  const H* a = static_cast<const H*>(in);
  H* b = static_cast<H*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = H(F{}(float(a[i]), float(b[i])));
}
struct AddF {
  float operator()(float a, float b) const { return a + b; }
};
struct MaxF {
  // NaN wins, as in torch.maximum.
  float operator()(float a, float b) const { return (a != a || a > b) ? a : b; }
};
struct MinF {
  float operator()(float a, float b) const { return (a != a || a < b) ? a : b; }
};

struct HalfOps {
  MPI_Op ops[2][3];  // [bf16?][sum, max, min]
};

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::Bool: return MPI_C_BOOL;
    case DType::U8: return MPI_UINT8_T;
    case DType::I8: return MPI_INT8_T;
    case DType::I16: return MPI_INT16_T;
    case DType::I32: return MPI_INT32_T;
    case DType::I64: return MPI_INT64_T;
    case DType::F16:
    case DType::BF16: return MPI_UINT16_T;
    case DType::F32: return MPI_FLOAT;
    case DType::F64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

bool g_we_initialized = false;

// Average is Sum followed by a division (by the rank count) on the host.
void divide(void* data, int64_t count, DType t, int size) {
  PLEXUS_CHECK(is_floating(t), ErrorCode::Unsupported,
               "average of {} tensors: only floating tensors average", dtype_name(t));
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(data);
    for (int64_t i = 0; i < count; ++i) p[i] = T(double(p[i]) / double(size));
  });
}

class MpiBackend final : public CommBackend {
 public:
  MpiBackend() {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    for (int b = 0; b < 2; ++b) {
      MPI_User_function* fns[2][3] = {
          {reduce_16<Half, AddF>, reduce_16<Half, MaxF>, reduce_16<Half, MinF>},
          {reduce_16<BFloat16, AddF>, reduce_16<BFloat16, MaxF>, reduce_16<BFloat16, MinF>}};
      for (int k = 0; k < 3; ++k) check(MPI_Op_create(fns[b][k], 1, &half_.ops[b][k]), "MPI_Op_create");
    }
  }
  ~MpiBackend() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto& row : half_.ops)
      for (MPI_Op& op : row) MPI_Op_free(&op);
    MPI_Comm_free(&comm_);
  }
  int rank() const { return rank_; }
  int size() const { return size_; }

  std::string name() const override { return "mpi"; }
  bool serves(DeviceType type) const override { return type == kCPU; }
  bool host_staging() const override { return true; }

  void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op) override {
    char* p = static_cast<char*>(data);
    for (int64_t done = 0; done < count;) {
      int n = chunk(count - done);
      check(MPI_Allreduce(MPI_IN_PLACE, p + done * int64_t(itemsize(dtype)), n, mpi_type(dtype),
                          mpi_op(dtype, op), comm_),
            "MPI_Allreduce");
      done += n;
    }
    if (op == ReduceOp::Average) divide(data, count, dtype, size_);
  }
  void broadcast(void* data, int64_t count, DType dtype, int root) override {
    char* p = static_cast<char*>(data);
    for (int64_t done = 0; done < count;) {
      int n = chunk(count - done);
      check(MPI_Bcast(p + done * int64_t(itemsize(dtype)), n, mpi_type(dtype), root, comm_),
            "MPI_Bcast");
      done += n;
    }
  }
  void all_gather(const void* in, void* out, int64_t count, DType dtype) override {
    int n = whole(count, "all_gather");
    check(MPI_Allgather(in, n, mpi_type(dtype), out, n, mpi_type(dtype), comm_), "MPI_Allgather");
  }
  void reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceOp op) override {
    int n = whole(count, "reduce_scatter");
    check(MPI_Reduce_scatter_block(in, out, n, mpi_type(dtype), mpi_op(dtype, op), comm_),
          "MPI_Reduce_scatter_block");
    if (op == ReduceOp::Average) divide(out, count, dtype, size_);
  }
  void barrier() override { check(MPI_Barrier(comm_), "MPI_Barrier"); }
  void send(const void* data, int64_t count, DType dtype, int dst, int tag) override {
    int n = whole(count, "send");
    check(MPI_Send(data, n, mpi_type(dtype), dst, tag, comm_), "MPI_Send");
  }
  void recv(void* data, int64_t count, DType dtype, int src, int tag) override {
    int n = whole(count, "recv");
    MPI_Status status;
    int rc = MPI_Recv(data, n, mpi_type(dtype), src, tag, comm_, &status);
    if (rc != MPI_SUCCESS) {
      int cls = 0;
      MPI_Error_class(rc, &cls);
      PLEXUS_CHECK(cls != MPI_ERR_TRUNCATE, ErrorCode::InvalidArgument,
                   "recv from rank {} (tag {}): the message is larger than the {} elements of "
                   "the receiving tensor",
                   src, tag, count);
      check(rc, "MPI_Recv");
    }
    int got = 0;
    MPI_Get_count(&status, mpi_type(dtype), &got);
    PLEXUS_CHECK(got == n, ErrorCode::InvalidArgument,
                 "recv from rank {} (tag {}): got {} elements, the receiving tensor has {}", src,
                 tag, got, count);
  }

 private:
  static int chunk(int64_t left) { return int(std::min<int64_t>(left, INT_MAX / 2)); }
  static int whole(int64_t count, const char* what) {
    PLEXUS_CHECK(count <= INT_MAX, ErrorCode::Unsupported,
                 "{} of {} elements: the mpi backend moves at most {} per rank in one call", what,
                 count, INT_MAX);
    return int(count);
  }
  MPI_Op mpi_op(DType dtype, ReduceOp op) const {
    if (dtype == DType::Bool) return op == ReduceOp::Min ? MPI_LAND : MPI_LOR;
    int k = op == ReduceOp::Max ? 1 : op == ReduceOp::Min ? 2 : 0;
    if (dtype == DType::F16) return half_.ops[0][k];
    if (dtype == DType::BF16) return half_.ops[1][k];
    return k == 1 ? MPI_MAX : k == 2 ? MPI_MIN : MPI_SUM;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  HalfOps half_{};
};

}  // namespace

void ensure_mpi() {
  static std::once_flag once;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized) {
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
      g_we_initialized = true;
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
      });
    } else {
      MPI_Query_thread(&provided);
    }
    PLEXUS_CHECK(provided == MPI_THREAD_MULTIPLE, ErrorCode::Unsupported,
                 "the MPI library provides thread level {}, plexus.distributed needs "
                 "MPI_THREAD_MULTIPLE ({}): each process group calls MPI from a worker thread",
                 provided, int(MPI_THREAD_MULTIPLE));
  });
}

std::unique_ptr<CommBackend> make_mpi_backend(int& rank, int& size) {
  ensure_mpi();
  auto b = std::make_unique<MpiBackend>();
  rank = b->rank();
  size = b->size();
  return b;
}

void abort_job(const std::string& why) {
  std::fprintf(stderr, "plexus.distributed: aborting the job: %s\n", why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

std::string mpi_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, size_t(len));
  if (size_t nl = v.find_first_of(",\n"); nl != std::string::npos) v.resize(nl);
  return v;
}

}  // namespace plexus::distributed::detail
