// DistributedDataParallel against single-process training: 2 ranks with a
// per-rank batch of B must train the seed model to the weights 1 process
// reaches with a batch of 2B (each rank also trains that reference itself).
#include <catch2/catch.hpp>

#include <cmath>

#include "plexus/autograd.h"
#include "plexus/distributed.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/optim.h"
#include "plexus/random.h"
#include "serial.h"
#include "simple_nn.h"

using namespace plexus;
using namespace plexus::distributed;
using plexus::distributed::testing::max_relative_difference;

namespace {

std::vector<double> host(const Tensor& t) {
  Tensor h = t.detach().to(DType::F64).contiguous();
  return std::vector<double>(h.data<double>(), h.data<double>() + h.numel());
}

struct Data {
  Tensor x, y;
};
Data make_data(int64_t n) {
  Generator gen(5);
  Tensor x = randn({n, 10}, gen);
  return {x, add(mm(x, randn({10, 1}, gen)), 0.5)};
}

}  // namespace

TEST_CASE("DDP on 2 ranks with batch B trains like 1 process with batch 2B", "[distributed][ddp]") {
  ProcessGroup& pg = default_group();
  const int64_t B = 8, steps = 12, world = pg.size();
  Data d = make_data(B * world * steps);
  // Different seeds per rank: DDP's broadcast must make them equal first.
  Generator gen(uint64_t(1 + pg.rank()));
  auto model = std::make_shared<train::SimpleNN>(gen, Device());
  DistributedDataParallel ddp(model, pg, {.bucket_bytes = 4096});
  REQUIRE(ddp.buckets().size() > 1);
  CHECK(ddp.buckets().front().front() == "fc3.bias");  // the last layer's gradients come first
  Generator gen0(1);
  train::SimpleNN reference(gen0, Device());
  CHECK(max_relative_difference(*model, reference) == 0.0);

  optim::Adam opt(model->named_parameters(), {.lr = 1e-2});
  optim::Adam ref_opt(reference.named_parameters(), {.lr = 1e-2});
  for (int64_t s = 0; s < steps; ++s) {
    Tensor xg = d.x.narrow(0, s * B * world, B * world), yg = d.y.narrow(0, s * B * world, B * world);
    Tensor xr = xg.narrow(0, pg.rank() * B, B), yr = yg.narrow(0, pg.rank() * B, B);
    opt.zero_grad();
    mse_loss(ddp(xr), yr).backward();
    opt.step();
    ref_opt.zero_grad();
    mse_loss(reference(xg), yg).backward();
    ref_opt.step();
  }
  CHECK(max_relative_difference(*model, reference) <= 1e-6);
  DDPStats st = ddp.stats();
  CHECK(st.synced_steps == uint64_t(steps));
  CHECK(st.buckets_reduced == uint64_t(steps) * ddp.buckets().size());
  CHECK(st.buckets_launched_early > 0);  // launched from backward's hooks, not at its end
  // Every rank holds the same weights, bit for bit.
  for (auto& [name, p] : model->named_parameters()) {
    Tensor both = pg.all_gather(p.detach());
    CHECK(host(both.select(0, 0)) == host(both.select(0, 1)));
  }
}

TEST_CASE("DDP no_sync accumulates locally; the next backward averages the sums",
          "[distributed][ddp]") {
  ProcessGroup& pg = default_group();
  const int64_t B = 4, world = pg.size();
  Data d = make_data(2 * B * world);
  Generator gen(3);
  auto model = std::make_shared<train::SimpleNN>(gen, Device());
  DistributedDataParallel ddp(model, pg);
  Generator gen2(3);
  train::SimpleNN reference(gen2, Device());
  // Two micro-batches per rank, one synced step; the reference sees all of
  // them in one backward of the same total (sum of per-micro-batch means / world).
  for (int micro = 0; micro < 2; ++micro) {
    Tensor x = d.x.narrow(0, (micro * world + pg.rank()) * B, B);
    Tensor y = d.y.narrow(0, (micro * world + pg.rank()) * B, B);
    if (micro == 0) {
      auto guard = ddp.no_sync();
      mse_loss(ddp(x), y).backward();
    } else {
      mse_loss(ddp(x), y).backward();
    }
  }
  CHECK(ddp.stats().synced_steps == 1);
  Tensor total;
  for (int micro = 0; micro < 2; ++micro)
    for (int r = 0; r < world; ++r) {
      Tensor l = mse_loss(reference(d.x.narrow(0, (micro * world + r) * B, B)),
                          d.y.narrow(0, (micro * world + r) * B, B));
      total = total.defined() ? add(total, l) : l;
    }
  div(total, double(world)).backward();
  auto mine = model->named_parameters(), ref = reference.named_parameters();
  for (size_t i = 0; i < mine.size(); ++i) {
    CAPTURE(mine[i].first);
    std::vector<double> a = host(mine[i].second.grad()), b = host(ref[i].second.grad());
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) CHECK(a[k] == Approx(b[k]).epsilon(1e-5).margin(1e-7));
  }
}

namespace {
// Rank 1 never uses `extra`: its gradient there counts as zero.
struct TwoHeads : nn::Module {
  std::shared_ptr<nn::Linear> body, extra;
  bool use_extra = true;
  explicit TwoHeads(Generator& gen)
      : body(register_module("body", nn::make<nn::Linear>(3, 1, gen))),
        extra(register_module("extra", nn::make<nn::Linear>(3, 1, gen))) {}
  Tensor forward(const Tensor& x) override {
    Tensor out = body->forward(x);
    return use_extra ? add(out, extra->forward(x)) : out;
  }
};
}  // namespace

TEST_CASE("DDP averages gradients a rank did not compute as zeros", "[distributed][ddp]") {
  ProcessGroup& pg = default_group();
  Generator gen(9);
  auto model = std::make_shared<TwoHeads>(gen);
  model->use_extra = pg.rank() == 0;
  DistributedDataParallel ddp(model, pg, {.bucket_bytes = 8});
  Tensor x = full({2, 3}, 1.0);
  sum(ddp(x)).backward();
  // d sum / d extra.bias = 2 on rank 0, nothing on rank 1: the average is 2 / world.
  CHECK(model->extra->bias.grad().item<double>() == Approx(2.0 / pg.size()));
  CHECK(model->body->bias.grad().item<double>() == Approx(2.0));
}

TEST_CASE("DDP refuses modules that differ across ranks", "[distributed][ddp]") {
  ProcessGroup& pg = default_group();
  Generator gen(1);
  auto model = std::make_shared<nn::Linear>(4, pg.rank() == 0 ? 2 : 3, gen);
  CHECK_THROWS_WITH(DistributedDataParallel(model, pg),
                    Catch::Contains("parameter 0 differs between rank 0 and rank 1"));
}
