// The process group: checks each request on the caller's thread, stages
// tensors the backend cannot read where they are, and queues the operation
// for the group's worker thread, which runs operations one at a time in the
// order they were issued (every rank issues collectives in the same order,
// so every rank runs them in the same order). Waiting is bounded by the
// group's timeout; see plexus/distributed.h for what happens on a fault.
#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "internal.h"
#include "plexus/stream.h"
#include "plexus/env.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/random.h"

namespace plexus::distributed {

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Average: return "average";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

enum class Kind : int64_t { AllReduce, Broadcast, AllGather, ReduceScatter, Barrier, Send, Recv };
constexpr const char* kKindNames[] = {"all_reduce", "broadcast", "all_gather", "reduce_scatter",
                                      "barrier",    "send",      "recv"};
bool is_collective(Kind k) { return k != Kind::Send && k != Kind::Recv; }

// What a rank passed to a collective, compared across ranks before it runs.
struct Fingerprint {
  static constexpr int kMaxDims = 8;
  int64_t seq = 0, kind = 0, dtype = 0, op = 0, root = 0, dims = 0;
  int64_t sizes[kMaxDims] = {};
  bool operator==(const Fingerprint&) const = default;
  std::string str() const {
    if (Kind(kind) == Kind::Barrier) return fmt::format("barrier (collective #{})", seq);
    std::vector<int64_t> s(sizes, sizes + std::min<int64_t>(dims, kMaxDims));
    std::string shape = shape_str(s);
    if (dims > kMaxDims) shape.insert(shape.size() - 1, ", ...");
    std::string extra;
    if (Kind(kind) == Kind::AllReduce || Kind(kind) == Kind::ReduceScatter)
      extra = fmt::format(", {}", reduce_op_name(ReduceOp(op)));
    if (Kind(kind) == Kind::Broadcast) extra = fmt::format(", root {}", root);
    return fmt::format("{} (collective #{}) of {} {}{}", kKindNames[kind], seq,
                       dtype_name(DType(dtype)), shape, extra);
  }
};
static_assert(sizeof(Fingerprint) % sizeof(int64_t) == 0);

struct Op {
  Kind kind = Kind::Barrier;
  uint64_t number = 0;  // in the group's issue order, collectives and point to point alike
  std::string what;     // "all_reduce #3 of float32 [4, 3]"
  CommBackend* backend = nullptr;
  Tensor in, out;       // contiguous buffers the backend reads and writes
  DType dtype = DType::F32;
  int64_t count = 0;    // elements per rank block
  ReduceOp reduce = ReduceOp::Sum;
  int peer = 0, tag = 0;
  bool check = false;
  Fingerprint fingerprint;
  // Caller-thread work once the backend is done (copying a staged result
  // back into the caller's tensor).
  std::function<void()> finish;
  // Set by the worker.
  bool done = false;
  std::string error;
  ErrorCode code = ErrorCode::Ok;
  double seconds = 0;
};

}  // namespace

struct ProcessGroup::Impl {
  std::unique_ptr<CommBackend> world;
  std::vector<std::unique_ptr<CommBackend>> others;
  CommBackend* by_type[kMaxDeviceTypes] = {};
  std::chrono::milliseconds timeout;
  bool check = false;
  int rank = 0, size = 1;

  std::mutex mu;
  std::condition_variable cv;  // the queue, completions and a broken group
  std::deque<std::shared_ptr<Op>> queue;
  std::shared_ptr<Op> running;
  Clock::time_point running_since;
  uint64_t issued = 0, collectives = 0;
  std::string broken;
  bool stop = false;
  std::thread worker;

  CommBackend* backend_of(DeviceType type) {
    if (CommBackend* b = by_type[type]) return b;
    return world.get();
  }

  void run() {
    for (;;) {
      std::shared_ptr<Op> op;
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        op = std::move(queue.front());
        queue.pop_front();
        running = op;
        running_since = Clock::now();
      }
      Clock::time_point t0 = Clock::now();
      std::string error;
      ErrorCode code = ErrorCode::Ok;
      try {
        if (op->check) check_same(*op);
        execute(*op);
      } catch (const Error& e) {
        error = e.message();
        code = e.code();
      } catch (const std::exception& e) {
        error = e.what();
        code = ErrorCode::Internal;
      }
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      {
        std::lock_guard lk(mu);
        op->done = true;
        op->error = std::move(error);
        op->code = code;
        op->seconds = s;
        running.reset();
      }
      cv.notify_all();
    }
  }

  // Every rank's fingerprint, gathered through MPI; all ranks see the same
  // table, so all of them fail (or none) and nobody is left waiting.
  void check_same(const Op& op) {
    std::vector<Fingerprint> all(static_cast<size_t>(size));
    constexpr int64_t words = sizeof(Fingerprint) / sizeof(int64_t);
    world->all_gather(&op.fingerprint, all.data(), words, DType::I64);
    std::vector<size_t> odd;
    for (size_t r = 1; r < all.size(); ++r)
      if (!(all[r] == all[0])) odd.push_back(r);
    if (odd.empty()) return;
    std::string lines = fmt::format("rank 0: {}", all[0].str());
    for (size_t r : odd) lines += fmt::format("; rank {}: {}", r, all[r].str());
    fail(ErrorCode::InvalidArgument,
         "the ranks called different collectives or passed different tensors ({}){}", lines,
         all[odd[0]].seq != all[0].seq || all[odd[0]].kind != all[0].kind
             ? ": the ranks are out of step, one issued a collective the others did not"
             : "");
  }

  void execute(Op& op) {
    CommBackend& b = *op.backend;
    switch (op.kind) {
      case Kind::AllReduce: b.all_reduce(raw(op.out), op.count, op.dtype, op.reduce); break;
      case Kind::Broadcast: b.broadcast(raw(op.out), op.count, op.dtype, op.peer); break;
      case Kind::AllGather: b.all_gather(raw(op.in), raw(op.out), op.count, op.dtype); break;
      case Kind::ReduceScatter:
        b.reduce_scatter(raw(op.in), raw(op.out), op.count, op.dtype, op.reduce);
        break;
      case Kind::Barrier: b.barrier(); break;
      case Kind::Send: b.send(raw(op.in), op.count, op.dtype, op.peer, op.tag); break;
      case Kind::Recv: b.recv(raw(op.out), op.count, op.dtype, op.peer, op.tag); break;
    }
  }
  // The address a backend gets: host address on the cpu, device address
  // (storage data plus byte offset) elsewhere.
  static void* raw(const Tensor& t) {
    if (!t.defined()) return nullptr;
    return static_cast<char*>(t.storage()->data()) + t.storage_offset() * int64_t(t.itemsize());
  }

  void mark_broken(std::string why) {
    if (broken.empty()) broken = std::move(why);
    cv.notify_all();
  }
};

namespace {

class WorkImpl final : public Work {
 public:
  WorkImpl(ProcessGroup::Impl& g, std::shared_ptr<Op> op) : g_(g), op_(std::move(op)) {}
  bool is_completed() const override {
    std::lock_guard lk(g_.mu);
    return op_->done;
  }
  double seconds() const override {
    std::lock_guard lk(g_.mu);
    return op_->seconds;
  }
  void wait() override {
    if (finished_) return;
    {
      std::unique_lock lk(g_.mu);
      while (!op_->done) {
        PLEXUS_CHECK(g_.broken.empty(), ErrorCode::DeviceError,
                     "{} cannot complete: the process group is broken: {}", op_->what, g_.broken);
        if (g_.running) {
          Clock::time_point deadline = g_.running_since + g_.timeout;
          if (Clock::now() >= deadline) {
            std::string behind = g_.running.get() == op_.get()
                                     ? std::string()
                                     : fmt::format(" (so {} could not start)", op_->what);
            std::string why = fmt::format(
                "{} did not complete within {} s on rank {}{}: a rank died, hangs, or did not "
                "issue the same operations; the group cannot be used again and the job is "
                "aborted at exit",
                g_.running->what, double(g_.timeout.count()) / 1000.0, g_.rank, behind);
            g_.mark_broken(why);
            fail(ErrorCode::DeviceError, "{}", why);
          }
          g_.cv.wait_until(lk, deadline);
        } else {
          g_.cv.wait_for(lk, g_.timeout);
        }
      }
    }
    finished_ = true;
    PLEXUS_CHECK(op_->error.empty(), op_->code, "{}: {}", op_->what, op_->error);
    if (op_->finish) op_->finish();
  }

 private:
  ProcessGroup::Impl& g_;
  std::shared_ptr<Op> op_;
  bool finished_ = false;
};

std::chrono::milliseconds default_timeout() {
  if (std::optional<std::string> v = env_var("PLEXUS_DIST_TIMEOUT"); v && !v->empty()) {
    char* end = nullptr;
    double s = std::strtod(v->c_str(), &end);
    PLEXUS_CHECK(end && *end == '\0' && s > 0, ErrorCode::InvalidArgument,
                 "PLEXUS_DIST_TIMEOUT={}: expected a positive number of seconds", *v);
    return std::chrono::milliseconds(int64_t(s * 1000));
  }
  return std::chrono::seconds(300);
}

bool default_check() {
  if (std::optional<std::string> v = env_var("PLEXUS_DIST_CHECK"); v && !v->empty()) return *v != "0";
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

Fingerprint fingerprint_of(Kind kind, uint64_t seq, const Tensor& t, ReduceOp op, int root) {
  Fingerprint f;
  f.seq = int64_t(seq);
  f.kind = int64_t(kind);
  if (t.defined()) {
    f.dtype = int64_t(t.dtype());
    f.dims = t.dim();
    for (int64_t d = 0; d < std::min<int64_t>(t.dim(), Fingerprint::kMaxDims); ++d) f.sizes[d] = t.size(d);
  }
  f.op = int64_t(op);
  f.root = root;
  return f;
}

// The backend per device type: ProcessGroupOptions::backends, then
// PLEXUS_DIST_BACKENDS ("cuda=mpi,npu=mine"), then nccl for cuda where every
// rank can run it (all ranks must choose alike, so they agree first: one
// small all-reduce when the group is made).
std::map<std::string, std::string> choose_backends(const ProcessGroupOptions& options,
                                                   CommBackend& world) {
  std::map<std::string, std::string> chosen;
  if (std::optional<std::string> v = env_var("PLEXUS_DIST_BACKENDS"); v && !v->empty()) {
    size_t start = 0;
    while (start <= v->size()) {
      size_t end = v->find(',', start);
      if (end == std::string::npos) end = v->size();
      std::string item = v->substr(start, end - start);
      size_t eq = item.find('=');
      PLEXUS_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < item.size(),
                   ErrorCode::InvalidArgument,
                   "PLEXUS_DIST_BACKENDS={}: '{}' is not TYPE=BACKEND (expected, for example, "
                   "cuda=mpi or cuda=nccl,npu=mine)",
                   *v, item);
      chosen[item.substr(0, eq)] = item.substr(eq + 1);
      start = end + 1;
    }
  }
  for (const auto& [type, backend] : options.backends) chosen[type] = backend;
#ifdef PLEXUS_HAVE_NCCL
  if (!chosen.count("cuda")) {
    int32_t usable = find_device_type("cuda") && detail::nccl_info().available ? 1 : 0;
    world.all_reduce(&usable, 1, DType::I32, ReduceOp::Min);
    if (usable) chosen["cuda"] = "nccl";
  }
#else
  (void)world;
#endif
  return chosen;
}

}  // namespace

ProcessGroup::ProcessGroup(std::unique_ptr<CommBackend> world, int rank, int size,
                           ProcessGroupOptions options)
    : rank_(rank), size_(size), impl_(std::make_unique<Impl>()) {
  Impl& g = *impl_;
  g.world = std::move(world);
  g.rank = rank;
  g.size = size;
  g.timeout = options.timeout.count() > 0 ? options.timeout : default_timeout();
  g.check = options.check_consistency.value_or(default_check());
  for (const auto& [type_name, backend] : choose_backends(options, *g.world)) {
    std::optional<DeviceType> type = find_device_type(type_name);
    PLEXUS_CHECK(type.has_value(), ErrorCode::NotFound,
                 "the communication backend chosen for device type '{}' "
                 "(ProcessGroupOptions::backends or PLEXUS_DIST_BACKENDS): no loaded plugin "
                 "registered that type; make the group after loading the plugins (a Runtime)",
                 type_name);
    CommBackend* b = nullptr;
    if (backend == g.world->name()) {
      b = g.world.get();
    } else {
      for (auto& o : g.others)
        if (o->name() == backend) b = o.get();
      if (!b) {
        CommBackendFactory make = detail::find_backend(backend);
        PLEXUS_CHECK(make != nullptr, ErrorCode::NotFound,
                     "ProcessGroupOptions::backends: no communication backend '{}' in this "
                     "build (`plexus devices` lists them)",
                     backend);
        g.others.push_back(make(*g.world, rank, size));
        b = g.others.back().get();
      }
    }
    PLEXUS_CHECK(b->serves(*type) || (b->host_staging() && b->serves(kCPU)),
                 ErrorCode::Unsupported,
                 "the {} backend cannot serve {} tensors; the {} backend serves every device "
                 "type (through host memory where it must)",
                 backend, type_name, g.world->name());
    g.by_type[*type] = b;
  }
  g.worker = std::thread([&g] { g.run(); });
}

ProcessGroup::~ProcessGroup() {
  Impl& g = *impl_;
  {
    std::lock_guard lk(g.mu);
    if (!g.broken.empty()) {
      // The worker is blocked in a call the other ranks will never join.
      g.worker.detach();
      detail::abort_job(g.broken);
    }
    g.stop = true;
  }
  g.cv.notify_all();
  g.worker.join();
}

std::string ProcessGroup::backend_for(DeviceType type) const {
  return impl_->backend_of(type)->name();
}
std::chrono::milliseconds ProcessGroup::timeout() const { return impl_->timeout; }
bool ProcessGroup::checks_consistency() const { return impl_->check; }
uint64_t ProcessGroup::operations() const {
  std::lock_guard lk(impl_->mu);
  return impl_->issued;
}
std::string ProcessGroup::broken() const {
  std::lock_guard lk(impl_->mu);
  return impl_->broken;
}

namespace {

void tell_capture(const Tensor& t, const char* what) {
  // A graph being captured cannot replay communication: like a host read,
  // it makes the compiled function run eagerly.
  if (plexus::detail::g_host_read_hook && t.defined()) plexus::detail::g_host_read_hook(t, what);
}

}  // namespace

// Builds and queues one operation. `in` is read, `out` written (for in-place
// collectives they are the same tensor); errors and checks describe `in`, or
// `out` when there is no input (recv).
static WorkPtr issue(ProcessGroup::Impl& g, Kind kind, const Tensor& in, const Tensor& out,
                     int64_t count, ReduceOp reduce, int peer, int tag) {
  const Tensor& described = in.defined() ? in : out;
  auto op = std::make_shared<Op>();
  op->kind = kind;
  op->reduce = reduce;
  op->peer = peer;
  op->tag = tag;
  op->count = count;
  if (described.defined()) {
    op->dtype = described.dtype();
    DeviceType type = described.device().type;
    CommBackend* b = g.backend_of(type);
    op->backend = b;
    bool direct = b->serves(type);
    auto buffer = [&](const Tensor& t, bool read) {
      if (direct && t.is_contiguous()) return t;
      if (direct) return read ? t.contiguous() : empty(t.sizes(), {t.dtype(), t.device()});
      return read ? t.to(Device()).contiguous() : empty(t.sizes(), {t.dtype(), Device()});
    };
    if (in.defined()) op->in = buffer(in, true);
    if (out.defined()) op->out = out.is_same(in) ? op->in : buffer(out, false);
    if (out.defined() && !op->out.is_same(out)) {
      Tensor staged = op->out, target = out;
      op->finish = [staged, target] { target.copy_(staged); };
    }
    // A backend that reads device memory itself runs on streams of its own:
    // the work that produces the buffers (queued on this thread's current
    // stream of the device, the contiguous copies above included) must be
    // done first.
    if (direct && type != kCPU) Stream::current(described.device()).synchronize();
  } else {
    op->backend = g.world.get();
  }
  std::lock_guard lk(g.mu);
  PLEXUS_CHECK(g.broken.empty(), ErrorCode::DeviceError,
               "{}: the process group is broken: {}", kKindNames[int(kind)], g.broken);
  op->number = ++g.issued;
  uint64_t seq = is_collective(kind) ? ++g.collectives : 0;
  op->what = kind == Kind::Barrier
                 ? fmt::format("barrier (collective #{})", seq)
             : is_collective(kind)
                 ? fmt::format("{} (collective #{}) of {}", kKindNames[int(kind)], seq, described.str())
                 : fmt::format("{} of {} {} rank {} (tag {})", kKindNames[int(kind)], described.str(),
                               kind == Kind::Send ? "to" : "from", peer, tag);
  if (is_collective(kind) && g.check && g.size > 1) {
    op->check = true;
    op->fingerprint = fingerprint_of(kind, seq, described, reduce, peer);
  }
  g.queue.push_back(op);
  g.cv.notify_all();
  return std::make_shared<WorkImpl>(g, op);
}

namespace {
void check_tensor(const Tensor& t, const char* what, const char* arg) {
  PLEXUS_CHECK_ARG(t.defined(), arg, "{}: '{}' is an undefined tensor", what, arg);
}
void check_rank(int r, int size, const char* what, const char* arg) {
  PLEXUS_CHECK_ARG(r >= 0 && r < size, arg, "{}: {} {} is not a rank of this group (0 .. {})",
                   what, arg, r, size - 1);
}
void check_reduce(const Tensor& t, ReduceOp op, const char* what) {
  PLEXUS_CHECK_ARG(op != ReduceOp::Average || is_floating(t.dtype()), "op",
                   "{}: average of a {} tensor: only floating tensors average (use sum and "
                   "divide)",
                   what, dtype_name(t.dtype()));
}
}  // namespace

WorkPtr ProcessGroup::all_reduce_async(const Tensor& t, ReduceOp op) {
  check_tensor(t, "all_reduce", "tensor");
  check_reduce(t, op, "all_reduce");
  tell_capture(t, "distributed all_reduce");
  return issue(*impl_, Kind::AllReduce, t, t, t.numel(), op, 0, 0);
}

WorkPtr ProcessGroup::broadcast_async(const Tensor& t, int root) {
  check_tensor(t, "broadcast", "tensor");
  check_rank(root, size_, "broadcast", "root");
  tell_capture(t, "distributed broadcast");
  // The root only reads; the others only write (a broadcast is in place).
  return issue(*impl_, Kind::Broadcast, t, t, t.numel(), ReduceOp::Sum, root, 0);
}

WorkPtr ProcessGroup::all_gather_async(const Tensor& out, const Tensor& in) {
  check_tensor(out, "all_gather", "out");
  check_tensor(in, "all_gather", "in");
  PLEXUS_CHECK_ARG(out.dtype() == in.dtype() && out.device() == in.device(), "out",
                   "all_gather: out is {} and in is {}; they must have one dtype and device",
                   out.str(), in.str());
  PLEXUS_CHECK_ARG(out.numel() == in.numel() * size_ && out.dim() >= 1 && in.dim() >= 0 &&
                       (in.dim() == 0 ? out.size(0) == size_ : out.size(0) == in.size(0) * size_),
                   "out",
                   "all_gather: out {} must hold {} blocks of in {} along dim 0 (shape [{} * n, "
                   "...])",
                   shape_str(out.sizes()), size_, shape_str(in.sizes()), size_);
  tell_capture(in, "distributed all_gather");
  return issue(*impl_, Kind::AllGather, in, out, in.numel(), ReduceOp::Sum, 0, 0);
}

Tensor ProcessGroup::all_gather(const Tensor& in) {
  check_tensor(in, "all_gather", "in");
  std::vector<int64_t> sizes{size_};
  sizes.insert(sizes.end(), in.sizes().begin(), in.sizes().end());
  Tensor out = empty(sizes, {in.dtype(), in.device()});
  all_gather(in.dim() == 0 ? out : out.flatten(0, 1), in);
  return out;
}

WorkPtr ProcessGroup::reduce_scatter_async(const Tensor& out, const Tensor& in, ReduceOp op) {
  check_tensor(out, "reduce_scatter", "out");
  check_tensor(in, "reduce_scatter", "in");
  check_reduce(in, op, "reduce_scatter");
  PLEXUS_CHECK_ARG(out.dtype() == in.dtype() && out.device() == in.device(), "out",
                   "reduce_scatter: out is {} and in is {}; they must have one dtype and device",
                   out.str(), in.str());
  PLEXUS_CHECK_ARG(in.numel() == out.numel() * size_ && in.dim() >= 1, "in",
                   "reduce_scatter: in {} must hold {} blocks of out {} along dim 0", shape_str(in.sizes()),
                   size_, shape_str(out.sizes()));
  tell_capture(in, "distributed reduce_scatter");
  return issue(*impl_, Kind::ReduceScatter, in, out, out.numel(), op, 0, 0);
}

WorkPtr ProcessGroup::barrier_async() {
  return issue(*impl_, Kind::Barrier, Tensor(), Tensor(), 0, ReduceOp::Sum, 0, 0);
}

WorkPtr ProcessGroup::send_async(const Tensor& t, int dst, int tag) {
  check_tensor(t, "send", "tensor");
  check_rank(dst, size_, "send", "dst");
  PLEXUS_CHECK_ARG(dst != rank_, "dst", "send: rank {} sending to itself (the group's operations "
                   "run one at a time, so the matching recv could never run)", rank_);
  PLEXUS_CHECK_ARG(tag >= 0, "tag", "send: tag {} is negative", tag);
  tell_capture(t, "distributed send");
  return issue(*impl_, Kind::Send, t, Tensor(), t.numel(), ReduceOp::Sum, dst, tag);
}

WorkPtr ProcessGroup::recv_async(const Tensor& t, int src, int tag) {
  check_tensor(t, "recv", "tensor");
  check_rank(src, size_, "recv", "src");
  PLEXUS_CHECK_ARG(src != rank_, "src", "recv: rank {} receiving from itself", rank_);
  PLEXUS_CHECK_ARG(tag >= 0, "tag", "recv: tag {} is negative", tag);
  tell_capture(t, "distributed recv");
  return issue(*impl_, Kind::Recv, Tensor(), t, t.numel(), ReduceOp::Sum, src, tag);
}

// --- the default group and the backend registry ---------------------------

namespace {
struct Registry {
  std::mutex mu;
  std::vector<std::pair<CommBackendInfo, CommBackendFactory>> backends;
};
Registry& registry() {
  static Registry r;
  return r;
}
std::mutex g_default_mu;
std::unique_ptr<ProcessGroup>& default_slot() {
  static std::unique_ptr<ProcessGroup> g;
  return g;
}
}  // namespace

void register_comm_backend(CommBackendInfo info, CommBackendFactory factory) {
  Registry& r = registry();
  std::lock_guard lk(r.mu);
  for (auto& [i, f] : r.backends)
    if (i.name == info.name) {
      i = std::move(info);
      f = std::move(factory);
      return;
    }
  r.backends.emplace_back(std::move(info), std::move(factory));
}

CommBackendFactory detail::find_backend(const std::string& name) {
  Registry& r = registry();
  std::lock_guard lk(r.mu);
  for (auto& [i, f] : r.backends)
    if (i.name == name) return f;
#ifdef PLEXUS_HAVE_NCCL
  if (name == "nccl") return detail::make_nccl_backend;
#endif
  return nullptr;
}

std::vector<CommBackendInfo> comm_backends() {
  std::vector<CommBackendInfo> out;
  out.push_back({"mpi", detail::mpi_version(),
                 "cpu directly; every other device type through host memory (not GPU-aware)",
                 true});
  Registry& r = registry();
  std::lock_guard lk(r.mu);
  bool nccl_registered = false;
  for (auto& [i, f] : r.backends) nccl_registered |= i.name == "nccl";
#ifdef PLEXUS_HAVE_NCCL
  if (!nccl_registered) out.push_back(detail::nccl_info());
#else
  if (!nccl_registered)
    out.push_back({"nccl",
                   "not built: nccl.h was not found when plexus was configured (the CUDA "
                   "toolkit's NCCL; cuda tensors use mpi through host memory)",
                   "cuda directly", false});
#endif
  for (auto& [i, f] : r.backends) out.push_back(i);
  return out;
}

ProcessGroup& init_process_group(ProcessGroupOptions options) {
  std::lock_guard lk(g_default_mu);
  std::unique_ptr<ProcessGroup>& slot = default_slot();
  if (!slot) {
    int rank = 0, size = 1;
    std::unique_ptr<CommBackend> world = detail::make_mpi_backend(rank, size);
    slot = std::make_unique<ProcessGroup>(std::move(world), rank, size, std::move(options));
    // Destroyed before MPI is finalized (ensure_mpi registered that first).
    std::atexit([] { default_slot().reset(); });
  }
  return *slot;
}

bool is_initialized() {
  std::lock_guard lk(g_default_mu);
  return default_slot() != nullptr;
}

ProcessGroup& default_group() {
  std::lock_guard lk(g_default_mu);
  PLEXUS_CHECK(default_slot() != nullptr, ErrorCode::InvalidArgument,
               "no process group: call plexus::distributed::init_process_group() first");
  return *default_slot();
}

// --- the sampler ------------------------------------------------------------

std::vector<int64_t> distributed_indices(int64_t n, int rank, int world, uint64_t epoch,
                                         bool shuffle, uint64_t seed, bool drop_last) {
  PLEXUS_CHECK_ARG(n >= 0, "n", "distributed_indices: n = {} is negative", n);
  PLEXUS_CHECK_ARG(world >= 1, "world", "distributed_indices: world = {} must be at least 1", world);
  PLEXUS_CHECK_ARG(rank >= 0 && rank < world, "rank",
                   "distributed_indices: rank {} is not in 0 .. {}", rank, world - 1);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  if (shuffle) {
    Generator gen(seed + epoch);
    order = randperm(n, gen);
  }
  int64_t per = drop_last ? n / world : (n + world - 1) / world;
  int64_t total = per * world;
  if (total > n && n > 0)
    for (int64_t i = n; i < total; ++i) order.push_back(order[size_t((i - n) % n)]);
  order.resize(size_t(total));
  std::vector<int64_t> mine;
  mine.reserve(size_t(per));
  for (int64_t i = rank; i < total; i += world) mine.push_back(order[size_t(i)]);
  return mine;
}

}  // namespace plexus::distributed
