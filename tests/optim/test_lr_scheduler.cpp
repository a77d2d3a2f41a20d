// Learning-rate schedulers: the learning rate each step() leaves in the
// optimizer, and that the optimizer's update then uses it.
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/factories.h"
#include "plexus/lr_scheduler.h"
#include "plexus/ops.h"
#include "plexus/optim.h"

using namespace plexus;
using Catch::Contains;

namespace {
optim::NamedParameters one_parameter() {
  Tensor p = tensor<double>({1.0, -2.0});
  p.requires_grad_();
  return {{"p", p}};
}
}  // namespace

TEST_CASE("StepLR multiplies the learning rate by gamma every step_size epochs", "[optim]") {
  optim::SGD opt(one_parameter(), {.lr = 0.8});
  optim::StepLR sched(opt, {.step_size = 3, .gamma = 0.5});
  std::vector<double> seen;
  for (int e = 0; e < 7; ++e) {
    seen.push_back(opt.lr());
    sched.step();
  }
  CHECK(seen == std::vector<double>{0.8, 0.8, 0.8, 0.4, 0.4, 0.4, 0.2});
  CHECK(sched.epoch() == 7);
  CHECK(sched.last_lr() == 0.2);
  CHECK_THROWS_WITH(optim::StepLR(opt, {.step_size = 0}), Contains("step_size must be positive"));
}

TEST_CASE("CosineAnnealingLR follows half a cosine from the base to eta_min", "[optim]") {
  optim::Adam opt(one_parameter(), {.lr = 1e-2});
  const double base = 1e-2, eta_min = 1e-4;
  optim::CosineAnnealingLR sched(opt, {.t_max = 10, .eta_min = eta_min});
  std::vector<double> lr = {opt.lr()};
  for (int e = 0; e < 20; ++e) {
    sched.step();
    lr.push_back(opt.lr());
  }
  CHECK(lr[0] == base);
  CHECK(lr[10] == Approx(eta_min).epsilon(1e-12));
  CHECK(lr[5] == Approx((base + eta_min) / 2).epsilon(1e-12));
  for (int e = 1; e <= 10; ++e) CHECK(lr[e] < lr[e - 1]);        // falls to t_max
  for (int e = 1; e < 10; ++e) CHECK(lr[10 - e] == Approx(lr[10 + e]).epsilon(1e-12));  // then rises
  CHECK(lr[20] == Approx(base).epsilon(1e-12));
}

TEST_CASE("a scheduled learning rate is the one the next update uses", "[optim]") {
  optim::NamedParameters params = one_parameter();
  Tensor p = params[0].second;
  optim::SGD opt(params, {.lr = 1.0});
  optim::StepLR sched(opt, {.step_size = 1, .gamma = 0.25});
  sched.step();  // lr 0.25
  sum(p).backward();  // gradient 1 everywhere
  opt.step();
  CHECK(p.tolist<double>() == std::vector<double>{0.75, -2.25});
}
