// The vulkan plugin's graph compiler (plugins/vulkan/graph.cpp): plexus::compile
// hands it the elementwise chains of a captured function, and it runs each as
// one generated compute shader. Each case checks the replay against the same
// function run eagerly on the device, op by op, and that the plugin (not the
// host, op by op) ran the chain: the profiler names a replay's steps.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "packed.h"
#include "plexus/factories.h"
#include "plexus/graph.h"
#include "plexus/ops.h"
#include "plexus/profiler.h"
#include "plexus/random.h"

using namespace plexus;
using namespace vulkan_test;

namespace {

Device vk() {
  return Device::parse("vulkan:0");
}

Tensor rand_on(std::vector<int64_t> sizes, uint64_t seed) {
  Generator gen(seed);
  return randn(sizes, gen).to(vk());
}

// max |a - b| / max |b|, on the host in float64.
double rel_diff(const Tensor& a, const Tensor& b) {
  std::vector<float> x = a.cpu().contiguous().to(DType::F32).tolist<float>();
  std::vector<float> y = b.cpu().contiguous().to(DType::F32).tolist<float>();
  REQUIRE(x.size() == y.size());
  double scale = 1e-30, w = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    scale = std::max(scale, std::abs(double(y[i])));
    w = std::max(w, std::abs(double(x[i]) - double(y[i])));
  }
  return w / scale;
}

// How many times a replay step whose profiler name starts with `prefix` ran.
uint64_t calls_of(const std::string& prefix) {
  uint64_t n = 0;
  for (const profiler::Record& r : profiler::records())
    if (r.op.rfind(prefix, 0) == 0) n += r.calls;
  return n;
}

}  // namespace

TEST_CASE("compiled chains on vulkan match eager in the packed and the general variant") {
  load_vulkan_plugin();
  // gelu(tanh) written as separate ops, and an Adam-like in-place update:
  // several inputs and outputs, in-place writes, scalars of every kind.
  auto gelu = [](const Tensor& x) {
    Tensor inner = mul(add(x, mul(mul(mul(x, x), x), 0.044715)), 0.7978845608028654);
    return mul(mul(x, 0.5), add(tanh(inner), 1.0));
  };
  auto adam = [](const Tensor& g, const Tensor& m, const Tensor& v) {
    m.lerp_(g, 0.1);
    v.mul_(wrapped_scalar(0.999));
    v.addcmul_(g, g, 0.001);
    return div(m, add(sqrt(v), 1e-8));
  };
  // 4099 and 35: the packed variant covers all but the last 3 elements.
  for (int64_t rows : {1024, 4099, 35}) {
    CAPTURE(rows);
    auto f = compile(gelu);
    auto a = compile(adam);
    const TensorOptions o(DType::F32, vk());
    Tensor m1 = zeros({rows, 1}, o), v1 = zeros({rows, 1}, o);
    Tensor m2 = zeros({rows, 1}, o), v2 = zeros({rows, 1}, o);
    profiler::reset();
    profiler::enable(true);
    for (int i = 0; i < 4; ++i) {
      Tensor x = rand_on({rows, 1}, uint64_t(rows + i));
      CHECK(rel_diff(f(x), gelu(x)) <= 1e-6);
      CHECK(rel_diff(a(x, m1, v1), adam(x, m2, v2)) <= 1e-6);
    }
    profiler::enable(false);
    CHECK(rel_diff(m1, m2) <= 1e-6);
    CHECK(rel_diff(v1, v2) <= 1e-6);
    CHECK(f.stats().replays == 2);
    CHECK(a.stats().replays == 2);
    CHECK(calls_of("compiled plugin fused(") == 4);  // two replays of two functions
  }
  profiler::reset();
}

TEST_CASE("compiled chains on vulkan take broadcasts and offsets and bool masks") {
  load_vulkan_plugin();
  // A row and a column broadcast, a view that starts off the 16-byte grid, a
  // mask made and returned (a bool output), and a mask converted and used (a
  // bool input to the next chain once the mask is returned).
  auto body = [](const Tensor& x, const Tensor& row, const Tensor& col) {
    Tensor y = sigmoid(add(mul(x, col), row, 0.5));
    Tensor mask = gt(y, 0.6);
    Tensor z = mul(sub(y, 0.25), mask.to(DType::F32));
    return std::vector<Tensor>{exp(neg(abs(z))), mask};
  };
  auto f = compile(
      [&](const Tensor& x, const Tensor& row, const Tensor& col) { return body(x, row, col)[0]; });
  auto g = compile(
      [&](const Tensor& x, const Tensor& row, const Tensor& col) { return body(x, row, col)[1]; });
  profiler::reset();
  profiler::enable(true);
  for (int i = 0; i < 4; ++i) {
    Tensor big = rand_on({13 * 33 + 1}, uint64_t(i));
    Tensor x = big.narrow(0, 1, 13 * 33).view({13, 33});  // 4 bytes past the grid
    Tensor row = rand_on({33}, uint64_t(10 + i)), col = rand_on({13, 1}, uint64_t(20 + i));
    std::vector<Tensor> want = body(x, row, col);
    CHECK(rel_diff(f(x, row, col), want[0]) <= 1e-6);
    Tensor mask = g(x, row, col);
    CHECK(mask.dtype() == DType::Bool);
    CHECK(rel_diff(mask.to(DType::F32), want[1].to(DType::F32)) == 0);
  }
  profiler::enable(false);
  CHECK(f.stats().replays == 2);
  CHECK(g.stats().replays == 2);
  CHECK(calls_of("compiled plugin fused(") >= 4);
  profiler::reset();
}

TEST_CASE("a 0-d chain and a chain of one element compile on vulkan") {
  load_vulkan_plugin();
  auto f = compile([](const Tensor& x) { return sqrt(add(mul(x, x), 1.0)); });
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{}, std::vector<int64_t>{1, 1}}) {
    for (int i = 0; i < 3; ++i) {
      Tensor x = rand_on(sizes, uint64_t(i));
      Tensor want = sqrt(add(mul(x, x), 1.0));
      CHECK(rel_diff(f(x), want) <= 1e-6);
    }
  }
  CHECK(f.stats().replays == 2);
}

TEST_CASE("a compiled forward on vulkan differentiates; its product chains split") {
  // The plugin does not take a chain's leading product: the host runs the
  // product as a kernel and offers the rest (bias-free here: mm + tanh).
  load_vulkan_plugin();
  Tensor w = rand_on({8, 6}, 7);
  w.requires_grad_();
  auto fn = [&](const Tensor& x) { return sum(mul(tanh(mm(x, w)), 0.5)); };
  auto f = compile(fn);
  for (int i = 0; i < 4; ++i) {
    Tensor x = rand_on({5, 8}, 20 + uint64_t(i));
    x.requires_grad_();
    Tensor got = f(x);
    got.backward();
    Tensor gx = x.grad(), gw = w.grad();
    w.set_grad(Tensor());
    Tensor x2 = x.detach();
    x2.requires_grad_();
    fn(x2).backward();
    INFO("call " << i);
    CHECK(rel_diff(gx, x2.grad()) <= 1e-5);
    CHECK(rel_diff(gw, w.grad()) <= 1e-5);
    w.set_grad(Tensor());
  }
  CHECK(f.stats().replays == 2);
  REQUIRE(f.graph() != nullptr);
  CHECK(f.graph()->differentiable());
}
