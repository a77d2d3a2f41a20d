// The nccl backend on real GPUs: every collective on cuda tensors against a
// serial computation, the ordering between the cuda plugin's streams and
// NCCL's, the errors it must give, and DDP training on cuda.
//
//   plexus-distributed-nccl                 one rank, no mpirun (any machine with a GPU)
//   mpirun -np N plexus-distributed-nccl    N ranks, one GPU each (rank r uses cuda:r % GPUs)
//
// Without a cuda device it says so and exits 77, which ctest reports as
// skipped. The plugins come from PLEXUS_TEST_PLUGIN_DIR, else the build tree.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "plexus/autograd.h"
#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/distributed.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/plugins.h"
#include "plexus/random.h"
#include "plexus/stream.h"
#include "serial.h"
#include "simple_nn.h"

using namespace plexus;
using namespace plexus::distributed;
using namespace plexus::distributed::testing;

namespace {

ProcessGroup* g_pg = nullptr;
Device g_gpu;

// The world of a program started without mpirun: one rank, so every
// collective leaves its data as it is (the nccl backend still runs NCCL).
class SelfWorld final : public CommBackend {
 public:
  std::string name() const override { return "self"; }
  bool serves(DeviceType type) const override { return type == kCPU; }
  void all_reduce(void*, int64_t, DType, ReduceOp) override {}
  void broadcast(void*, int64_t, DType, int) override {}
  void all_gather(const void* in, void* out, int64_t count, DType dtype) override {
    std::memmove(out, in, size_t(count) * itemsize(dtype));
  }
  void reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceOp) override {
    std::memmove(out, in, size_t(count) * itemsize(dtype));
  }
  void barrier() override {}
  void send(const void*, int64_t, DType, int, int) override { fail(ErrorCode::Internal, "self: send"); }
  void recv(void*, int64_t, DType, int, int) override { fail(ErrorCode::Internal, "self: recv"); }
};

// The dtypes NCCL reduces (int16 has no NCCL type).
const std::vector<DType> kReduced = {DType::Bool, DType::U8,  DType::I8,  DType::I32, DType::I64,
                                     DType::F16,  DType::BF16, DType::F32, DType::F64};

std::vector<Tensor> every_rank(DType dt, const std::vector<int64_t>& shape, int salt = 0) {
  std::vector<Tensor> ins;
  for (int r = 0; r < g_pg->size(); ++r) ins.push_back(input_of(r, dt, shape, salt));
  return ins;
}

}  // namespace

TEST_CASE("cuda tensors go to the nccl backend by default", "[nccl]") {
  DeviceType cuda = *find_device_type("cuda");
  CHECK(g_pg->backend_for(cuda) == "nccl");
  CHECK(g_pg->backend_for(kCPU) == g_pg->backend_for(kCPU));  // the world's
}

TEST_CASE("nccl all_reduce matches a serial reduction for every dtype, op and shape", "[nccl]") {
  for (DType dt : kReduced)
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Average}) {
      if (op == ReduceOp::Average && !is_floating(dt)) continue;
      for (const auto& shape : kShapes) {
        CAPTURE(dtype_name(dt), reduce_op_name(op), shape);
        std::vector<Tensor> ins = every_rank(dt, shape);
        Tensor t = ins[size_t(g_pg->rank())].to(g_gpu);
        g_pg->all_reduce(t, op);
        CHECK(t.device() == g_gpu);
        CHECK(values(t) == values(serial(ins, op).to(dt)));
      }
    }
}

TEST_CASE("nccl all_reduce of a non-contiguous cuda tensor writes back through the view", "[nccl]") {
  std::vector<Tensor> ins = every_rank(DType::F32, {13, 17});
  Tensor base = ins[size_t(g_pg->rank())].to(g_gpu).t().contiguous();  // [17, 13]
  Tensor view = base.t();                                                // [13, 17], strided
  REQUIRE_FALSE(view.is_contiguous());
  g_pg->all_reduce(view);
  CHECK(values(view) == values(serial(ins, ReduceOp::Sum).to(DType::F32)));
}

TEST_CASE("nccl reads what the cuda plugin's queued kernels produce", "[nccl]") {
  // A long chain on the plugin's stream, then at once a collective whose
  // output is a different buffer: without the producer synchronization, NCCL
  // (on a stream of its own) would read the input before the chain ends.
  Generator gen(7);
  Tensor host = randn({1 << 22}, gen);
  Tensor x = host.to(g_gpu);
  for (int i = 0; i < 40; ++i) x = add(mul(x, 1.0009765625), 0.25);
  Tensor gathered = g_pg->all_gather(x);
  Tensor expected = x.to(Device());
  for (int r = 0; r < g_pg->size(); ++r) {
    CAPTURE(r);
    CHECK(values(gathered.select(0, r)) == values(expected));
  }
  // The same on a user stream: the group waits for this thread's current one.
  Stream s = Stream::create(g_gpu);
  StreamGuard guard(s);
  Tensor y = host.to(g_gpu);
  for (int i = 0; i < 40; ++i) y = add(mul(y, 0.9990234375), 0.125);
  Tensor gathered_y = g_pg->all_gather(y);
  Tensor expected_y = y.to(Device());
  for (int r = 0; r < g_pg->size(); ++r) CHECK(values(gathered_y.select(0, r)) == values(expected_y));
}

TEST_CASE("nccl broadcast, all_gather and reduce_scatter match a serial computation", "[nccl]") {
  const int n = g_pg->size();
  for (DType dt : {DType::Bool, DType::I16, DType::BF16, DType::F32, DType::F64, DType::I64}) {
    CAPTURE(dtype_name(dt));
    std::vector<Tensor> ins = every_rank(dt, {5, 3});
    for (int root = 0; root < n; ++root) {
      Tensor t = ins[size_t(g_pg->rank())].to(g_gpu);
      g_pg->broadcast(t, root);
      CHECK(values(t) == values(ins[size_t(root)]));
    }
    Tensor gathered = g_pg->all_gather(ins[size_t(g_pg->rank())].to(g_gpu));
    REQUIRE(gathered.sizes() == std::vector<int64_t>{n, 5, 3});
    for (int r = 0; r < n; ++r) CHECK(values(gathered.select(0, r)) == values(ins[size_t(r)]));
  }
  for (DType dt : {DType::I32, DType::F16, DType::F32}) {
    CAPTURE(dtype_name(dt));
    std::vector<Tensor> ins = every_rank(dt, {n * 4, 3}, 1);
    Tensor out = empty({4, 3}, {dt, g_gpu});
    g_pg->reduce_scatter(out, ins[size_t(g_pg->rank())].to(g_gpu));
    Tensor total = serial(ins, ReduceOp::Sum).to(dt);
    CHECK(values(out) == values(total.narrow(0, g_pg->rank() * 4, 4)));
  }
}

TEST_CASE("nccl refuses int16 reductions naming the backend that can", "[nccl]") {
  Tensor t = ones({4}, {DType::I16, g_gpu});
  try {
    g_pg->all_reduce(t);
    FAIL("an int16 all_reduce on nccl did not fail");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("NCCL has no int16 type") &&
                             Catch::Contains("cuda=mpi"));
  }
  // The group is usable afterwards.
  Tensor f = ones({4}, {DType::F32, g_gpu});
  g_pg->all_reduce(f);
  CHECK(values(f) == std::vector<double>(4, double(g_pg->size())));
}

TEST_CASE("nccl send and recv between ranks, and a size mismatch fails on both", "[nccl]") {
  if (g_pg->size() < 2) return;  // needs a peer
  const int r = g_pg->rank(), n = g_pg->size();
  Tensor mine = input_of(r, DType::F32, {33}).to(g_gpu);
  Tensor got = empty({33}, {DType::F32, g_gpu});
  if (r % 2 == 0) {
    g_pg->send(mine, (r + 1) % n, 3);
    g_pg->recv(got, (r + n - 1) % n, 3);
  } else {
    g_pg->recv(got, (r + n - 1) % n, 3);
    g_pg->send(mine, (r + 1) % n, 3);
  }
  CHECK(values(got) == values(input_of((r + n - 1) % n, DType::F32, {33})));
  if (r < 2) {
    Tensor t = empty({r == 0 ? 8 : 9}, {DType::F32, g_gpu});
    try {
      if (r == 0)
        g_pg->send(t, 1, 9);
      else
        g_pg->recv(t, 0, 9);
      FAIL("a send of 8 elements into 9 did not fail");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("element"));
    }
  }
  g_pg->barrier();
}

TEST_CASE("DDP on cuda over nccl trains like one process with the whole batch", "[nccl][ddp]") {
  const int64_t B = 8, steps = 10, world = g_pg->size();
  Generator dgen(5);
  Tensor x = randn({B * world * steps, 10}, dgen);
  Tensor y = add(mm(x, randn({10, 1}, dgen)), 0.5);
  x = x.to(g_gpu);
  y = y.to(g_gpu);
  Generator gen(uint64_t(1 + g_pg->rank()));
  auto model = std::make_shared<train::SimpleNN>(gen, g_gpu);
  DistributedDataParallel ddp(model, *g_pg, {.bucket_bytes = 4096});
  Generator gen0(1);
  train::SimpleNN reference(gen0, g_gpu);
  optim::Adam opt(model->named_parameters(), {.lr = 1e-2});
  optim::Adam ref_opt(reference.named_parameters(), {.lr = 1e-2});
  for (int64_t s = 0; s < steps; ++s) {
    Tensor xg = x.narrow(0, s * B * world, B * world), yg = y.narrow(0, s * B * world, B * world);
    Tensor xr = xg.narrow(0, g_pg->rank() * B, B), yr = yg.narrow(0, g_pg->rank() * B, B);
    opt.zero_grad();
    mse_loss(ddp(xr), yr).backward();
    opt.step();
    ref_opt.zero_grad();
    mse_loss(reference(xg), yg).backward();
    ref_opt.step();
  }
  for (const auto& [name, p] : model->named_parameters()) {
    CAPTURE(name);
    CHECK(p.device() == g_gpu);
  }
  CHECK(max_relative_difference(*model, reference) <= 1e-5);
  CHECK(ddp.stats().buckets_reduced == uint64_t(steps) * ddp.buckets().size());
}

int main(int argc, char** argv) {
  PluginLoadOptions options;
  const char* dir = std::getenv("PLEXUS_TEST_PLUGIN_DIR");
  options.search_paths = {dir && *dir ? dir : PLEXUS_PLUGIN_DIR};
  options.use_environment = false;
  options.use_default_paths = false;
  options.allow = {"cpu", "cuda"};
  load_plugins(options);
  Dispatcher::get().set_fallback_policy(FallbackPolicy::Error);
  std::optional<DeviceType> cuda = find_device_type("cuda");
  DeviceBackend* backend = cuda ? find_device_backend(*cuda) : nullptr;
  int gpus = backend ? backend->device_count() : 0;
  if (gpus == 0) {
    std::printf("no cuda device (the cuda plugin did not load or found no GPU): skipped\n");
    return 77;
  }
  std::unique_ptr<ProcessGroup> own;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE")) {
    g_pg = &init_process_group({.check_consistency = true});
  } else {
    own = std::make_unique<ProcessGroup>(std::make_unique<SelfWorld>(), 0, 1,
                                         ProcessGroupOptions{.check_consistency = true});
    g_pg = own.get();
  }
  g_gpu = Device(*cuda, int16_t(g_pg->rank() % gpus));
  for (const CommBackendInfo& b : comm_backends())
    if (b.name == "nccl")
      std::printf("rank %d of %d on %s, %s\n", g_pg->rank(), g_pg->size(), g_gpu.str().c_str(),
                  b.version.c_str());
  int result = Catch::Session().run(argc, argv);
  own.reset();
  return result;
}
