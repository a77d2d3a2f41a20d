// DistributedDataParallel: gradients averaged across ranks in buckets, each
// launched (asynchronously) from autograd's post-accumulate hooks as soon as
// its last gradient exists, and waited for in a callback at the end of
// backward. Buckets launch strictly in order, so every rank issues the same
// collectives in the same order whatever order its gradients arrive in.
#include <fmt/format.h>

#include <functional>

#include "plexus/autograd.h"
#include "plexus/distributed.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::distributed {

using Clock = std::chrono::steady_clock;

struct DistributedDataParallel::State {
  explicit State(ProcessGroup& g) : pg(g) {}
  ProcessGroup& pg;
  std::vector<std::pair<std::string, Tensor>> params;
  struct Bucket {
    std::vector<size_t> members;  // indices into params
    std::vector<int64_t> offsets; // element offset of each member in `flat`
    int64_t numel = 0;
    DType dtype = DType::F32;
    Device device;
    Tensor flat;  // this step's gradients, one after another
    size_t pending = 0;
    WorkPtr work;
  };
  std::vector<Bucket> buckets;  // in launch order
  std::vector<size_t> bucket_of, slot_of;
  std::vector<bool> arrived;
  size_t next_launch = 0;
  bool sync = true;
  bool step_active = false;
  DDPStats stats;

  void launch_ready(bool early) {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      Bucket& b = buckets[next_launch++];
      b.work = pg.all_reduce_async(b.flat, ReduceOp::Average);
      if (early) ++stats.buckets_launched_early;
    }
  }

  void begin_step() {
    step_active = true;
    next_launch = 0;
    std::fill(arrived.begin(), arrived.end(), false);
    for (Bucket& b : buckets) {
      b.pending = b.members.size();
      b.flat = empty({b.numel}, {b.dtype, b.device});
      b.work.reset();
    }
  }

  void on_gradient(size_t i) {
    const Tensor& p = params[i].second;
    Tensor g = p.grad();
    if (!g.defined()) return;
    if (!step_active) {
      begin_step();
      std::weak_ptr<State> weak = self;
      autograd::queue_callback([weak] {
        if (auto st = weak.lock()) st->finish_step();
      });
    }
    Bucket& b = buckets[bucket_of[i]];
    size_t slot = slot_of[i];
    b.flat.narrow(0, b.offsets[slot], p.numel()).copy_(g.reshape({-1}));
    if (!arrived[i]) {
      arrived[i] = true;
      --b.pending;
    }
    launch_ready(true);
  }

  // After backward: launches the buckets still waiting (gradients this rank
  // did not compute count as zeros), waits for all, and makes each
  // parameter's grad() a view of its averaged slice.
  void finish_step() {
    step_active = false;
    for (size_t k = next_launch; k < buckets.size(); ++k) {
      Bucket& b = buckets[k];
      for (size_t s = 0; s < b.members.size(); ++s)
        if (!arrived[b.members[s]])
          b.flat.narrow(0, b.offsets[s], params[b.members[s]].second.numel()).zero_();
      b.pending = 0;
    }
    launch_ready(false);
    Clock::time_point t0 = Clock::now();
    for (Bucket& b : buckets) b.work->wait();
    stats.exposed_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    for (Bucket& b : buckets) {
      stats.comm_seconds += b.work->seconds();
      for (size_t s = 0; s < b.members.size(); ++s) {
        const Tensor& p = params[b.members[s]].second;
        p.set_grad(b.flat.narrow(0, b.offsets[s], p.numel()).view(p.sizes()));
      }
      b.work.reset();
      b.flat = Tensor();
    }
    stats.buckets_reduced += buckets.size();
    ++stats.synced_steps;
  }

  std::weak_ptr<State> self;
};

namespace {

// A digest of a parameter's name, dtype and shape, to compare across ranks.
int64_t digest(const std::string& name, const Tensor& p) {
  std::string text = fmt::format("{} {} {}", name, dtype_name(p.dtype()), shape_str(p.sizes()));
  return int64_t(std::hash<std::string>{}(text) & 0x7fffffffffffffffULL);
}

// Every rank must wrap the same parameters: compared before anything else.
void check_same_parameters(ProcessGroup& pg,
                           const std::vector<std::pair<std::string, Tensor>>& params) {
  Tensor count = full({1}, int64_t(params.size()), {DType::I64});
  Tensor counts = pg.all_gather(count);
  const int64_t* c = counts.data<int64_t>();
  for (int r = 1; r < pg.size(); ++r)
    PLEXUS_CHECK(c[r] == c[0], ErrorCode::InvalidArgument,
                 "DistributedDataParallel: rank 0's module has {} parameters, rank {}'s has {}: "
                 "every rank must wrap the same module",
                 c[0], r, c[r]);
  if (params.empty()) return;
  Tensor mine = empty({int64_t(params.size())}, {DType::I64});
  for (size_t i = 0; i < params.size(); ++i)
    mine.data<int64_t>()[i] = digest(params[i].first, params[i].second);
  Tensor all = pg.all_gather(mine);
  const int64_t* d = all.data<int64_t>();
  const int64_t n = int64_t(params.size());
  for (int r = 1; r < pg.size(); ++r)
    for (int64_t i = 0; i < n; ++i)
      PLEXUS_CHECK(d[r * n + i] == d[i], ErrorCode::InvalidArgument,
                   "DistributedDataParallel: parameter {} differs between rank 0 and rank {} "
                   "(this rank, {}, has {} {} {}): every rank must wrap the same module",
                   i, r, pg.rank(), params[size_t(i)].first,
                   dtype_name(params[size_t(i)].second.dtype()),
                   shape_str(params[size_t(i)].second.sizes()));
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 ProcessGroup& group, DDPOptions options)
    : module_(std::move(module)) {
  PLEXUS_CHECK_ARG(module_ != nullptr, "module", "DistributedDataParallel: module is null");
  PLEXUS_CHECK_ARG(options.bucket_bytes > 0, "bucket_bytes",
                   "DistributedDataParallel: bucket_bytes must be positive");
  register_module("module", module_);
  state_ = std::make_shared<State>(group);
  State& st = *state_;
  st.self = state_;
  for (auto& [name, p] : module_->named_parameters())
    if (p.requires_grad()) st.params.emplace_back(name, p);
  check_same_parameters(group, st.params);
  if (options.broadcast_parameters) {
    NoGradGuard no_grad;
    for (auto& [name, p] : st.params) group.broadcast(p.detach(), 0);
  }
  // Buckets, from the last parameter to the first: backward makes the last
  // layer's gradients first.
  st.bucket_of.resize(st.params.size());
  st.slot_of.resize(st.params.size());
  st.arrived.assign(st.params.size(), false);
  for (size_t k = st.params.size(); k-- > 0;) {
    const Tensor& p = st.params[k].second;
    size_t bytes = size_t(p.numel()) * p.itemsize();
    bool fresh = st.buckets.empty() || st.buckets.back().dtype != p.dtype() ||
                 !(st.buckets.back().device == p.device()) ||
                 (st.buckets.back().numel > 0 &&
                  size_t(st.buckets.back().numel) * p.itemsize() + bytes > options.bucket_bytes);
    if (fresh) {
      st.buckets.emplace_back();
      st.buckets.back().dtype = p.dtype();
      st.buckets.back().device = p.device();
    }
    State::Bucket& b = st.buckets.back();
    st.bucket_of[k] = st.buckets.size() - 1;
    st.slot_of[k] = b.members.size();
    b.members.push_back(k);
    b.offsets.push_back(b.numel);
    b.numel += p.numel();
  }
  std::weak_ptr<State> weak = state_;
  for (size_t k = 0; k < st.params.size(); ++k)
    st.params[k].second.register_post_accumulate_grad_hook([weak, k](const Tensor&) {
      std::shared_ptr<State> s = weak.lock();
      if (s && s->sync) s->on_gradient(k);
    });
}

DistributedDataParallel::~DistributedDataParallel() = default;

Tensor DistributedDataParallel::forward(const Tensor& input) { return module_->forward(input); }

DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& ddp)
    : ddp_(ddp), prev_(ddp.state_->sync) {
  ddp.state_->sync = false;
}
DistributedDataParallel::NoSync::~NoSync() { ddp_.state_->sync = prev_; }

DDPStats DistributedDataParallel::stats() const { return state_->stats; }

std::vector<std::vector<std::string>> DistributedDataParallel::buckets() const {
  std::vector<std::vector<std::string>> out;
  for (const State::Bucket& b : state_->buckets) {
    out.emplace_back();
    for (size_t i : b.members) out.back().push_back(state_->params[i].first);
  }
  return out;
}

}  // namespace plexus::distributed
