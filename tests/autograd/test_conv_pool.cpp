// conv2d and max_pool2d: their rules under gradcheck (through the catalog's
// backward ops), the backward ops' own errors, and max_pool2d_backward's
// composite against the cpu plugin's kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <limits>

#include "autograd/random.h"
#include "plexus/autograd.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/ops.h"

using namespace plexus;
using plexus::autograd::gradcheck;
using plexus::testing::leaf;
using Inputs = std::vector<Tensor>;
using Ints = std::vector<int64_t>;

namespace {

struct ConvCase {
  const char* name;
  Ints input, weight, stride, padding, dilation;
  int64_t groups;
  bool bias;
};

struct PoolCase {
  const char* name;
  Ints input, kernel, stride, padding, dilation;
  bool ceil_mode;
};

const PoolCase kPoolCases[] = {
    {"k2", {2, 3, 6, 6}, {2}, {}, {0}, {1}, false},
    {"k3_s1_p1 (overlapping)", {1, 2, 7, 6}, {3}, {1}, {1}, {1}, false},
    {"k_2_3_s_1_2", {2, 2, 7, 9}, {2, 3}, {1, 2}, {1}, {1}, false},
    {"dilation2", {1, 2, 9, 9}, {3}, {1}, {1}, {2}, false},
    {"ceil_padding", {1, 2, 7, 7}, {3}, {2}, {1}, {1}, true},
    {"ceil_dilation", {2, 1, 10, 9}, {3, 2}, {2, 3}, {1}, {2, 1}, true},
};

// Runs `f` with the cpu plugin's kernel for `op` taken away, so the
// catalog's composite serves the call.
template <typename F>
auto without_cpu_kernel(const char* op, F f) {
  Dispatcher& d = Dispatcher::get();
  const KernelEntry* e = d.op(op).kernel(kCPU);
  REQUIRE(e != nullptr);
  KernelEntry saved = *e;
  std::string source(saved.source);
  d.unregister_kernel(op, kCPU);
  struct Restore {
    Dispatcher& d;
    const char* op;
    KernelEntry& saved;
    std::string& source;
    ~Restore() { d.register_kernel(op, kCPU, saved.fn, saved.ctx, saved.dtypes, source); }
  } restore{d, op, saved, source};
  return f();
}

// A float64 cpu tensor holding `v`.
Tensor from_host(const std::vector<double>& v, IntArrayRef sizes) {
  Tensor t = empty(sizes, TensorOptions(DType::F64));
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}

// Small integers (values rounded on the host), in dtype dt.
Tensor rounded(const Tensor& t, double scale, DType dt) {
  std::vector<double> v = t.detach().to(DType::F64).contiguous().tolist<double>();
  for (double& x : v) x = std::round(x * scale);
  return from_host(v, t.sizes()).to(dt);
}

}  // namespace

TEST_CASE("conv2d rule: input, weight and bias, with stride, padding, dilation and groups",
          "[rules][conv]") {
  const ConvCase cases[] = {
      {"basic", {2, 3, 6, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, 1, true},
      {"stride_padding_dilation", {1, 4, 7, 8}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, 2, true},
      {"depthwise", {2, 3, 5, 5}, {3, 1, 3, 3}, {1}, {1}, {1}, 3, false},
      {"stride_over_kernel", {1, 2, 8, 7}, {2, 2, 2, 2}, {3}, {2}, {2}, 1, true},
      {"one_by_one", {2, 5, 3, 4}, {3, 5, 1, 1}, {1}, {0}, {1}, 1, true},
  };
  for (const ConvCase& p : cases) {
    INFO(p.name);
    Tensor x = leaf(p.input, 40), w = leaf(p.weight, 41), b = leaf({p.weight[0]}, 42);
    auto f = [&p](const Inputs& v) {
      return conv2d(v[0], v[1], p.bias ? v[2] : Tensor(), p.stride, p.padding, p.dilation,
                    p.groups);
    };
    CHECK(gradcheck(f, p.bias ? Inputs{x, w, b} : Inputs{x, w}));
  }
  // Unbatched input: the batch dim is a view around the recorded call.
  Tensor x = leaf({2, 5, 5}, 43), w = leaf({3, 2, 2, 2}, 44);
  CHECK(gradcheck([](const Inputs& v) { return conv2d(v[0], v[1], {}, {1}, {1}); }, {x, w}));
  // Only the weight requires grad (a frozen input, as in a first layer).
  Tensor frozen = leaf({1, 2, 4, 4}, 45).detach();
  CHECK(gradcheck([frozen](const Inputs& v) { return conv2d(frozen, v[0]); }, {w}));
}

TEST_CASE("conv2d's backward ops check their arguments", "[rules][conv]") {
  Tensor g = zeros({1, 4, 5, 5}, TensorOptions(DType::F32));
  Tensor w = zeros({4, 3, 3, 3}, TensorOptions(DType::F32));
  Tensor x = zeros({1, 3, 7, 7}, TensorOptions(DType::F32));
  CHECK(conv2d_backward_input(g, w, {1, 3, 7, 7}).sizes() == IntArrayRef({1, 3, 7, 7}));
  CHECK(conv2d_backward_weight(g, x, {4, 3, 3, 3}).sizes() == IntArrayRef({4, 3, 3, 3}));
  // grad_output of the wrong spatial size for this input and weight.
  CHECK_THROWS_WITH(conv2d_backward_input(g, w, {1, 3, 8, 7}),
                    Catch::Contains("grad_output") && Catch::Contains("[1, 4, 6, 5]"));
  CHECK_THROWS_WITH(conv2d_backward_input(g, w, {1, 3, 7}),
                    Catch::Contains("input_size") && Catch::Contains("four sizes"));
  CHECK_THROWS_WITH(conv2d_backward_weight(g, x, {4, 2, 3, 3}),
                    Catch::Contains("weight_size") || Catch::Contains("input channels"));
  CHECK_THROWS_WITH(conv2d_backward_weight(g.to(DType::F64), x, {4, 3, 3, 3}),
                    Catch::Contains("dtype"));
}

TEST_CASE("max_pool2d rule: each window's gradient goes to its maximum", "[rules][pool]") {
  for (const PoolCase& p : kPoolCases) {
    INFO(p.name);
    Tensor x = leaf(p.input, 50);
    CHECK(gradcheck(
        [&p](const Inputs& v) {
          return max_pool2d(v[0], p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
        },
        {x}));
  }
  // Ties: the first maximum in the window (row-major) takes the gradient;
  // overlapping windows add up at a shared maximum.
  Tensor flat = zeros({1, 1, 2, 2}, TensorOptions(DType::F64)).requires_grad_();
  max_pool2d(flat, {2}).sum().backward();
  CHECK(flat.grad().tolist<double>() == std::vector<double>{1, 0, 0, 0});
  Tensor peak = tensor<double>({0, 0, 0, 0, 9, 0, 0, 0, 0}, {1, 1, 3, 3}).requires_grad_();
  max_pool2d(peak, {2}, {1}).sum().backward();
  CHECK(peak.grad().tolist<double>() == std::vector<double>{0, 0, 0, 0, 4, 0, 0, 0, 0});
}

TEST_CASE("max_pool2d_backward: the composite matches the cpu kernel", "[rules][pool]") {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::F32, DType::F64, DType::BF16}) {
    for (const PoolCase& p : kPoolCases) {
      INFO(p.name << " " << dtype_name(dt));
      Tensor x = leaf(p.input, 51).detach().to(dt);
      // Small integers: ties everywhere, and exact sums in every dtype.
      Tensor ties = rounded(x, 1.5, dt);
      Tensor special = x.clone();
      std::vector<double> v = special.to(DType::F64).tolist<double>();
      v[1] = nan;
      v[4] = inf;
      v[7] = -inf;
      special = from_host(v, p.input).to(dt);
      for (const Tensor& in : {x, ties, special}) {
        Tensor y = max_pool2d(in, p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
        Tensor g = rounded(leaf(Ints(y.sizes().begin(), y.sizes().end()), 52), 1.5, dt);
        auto run = [&] {
          return max_pool2d_backward(g, in, p.kernel, p.stride, p.padding, p.dilation,
                                     p.ceil_mode);
        };
        Tensor native = run();
        Tensor composite = without_cpu_kernel("max_pool2d_backward.out", run);
        CHECK(native.to(DType::F64).tolist<double>() ==
              composite.to(DType::F64).tolist<double>());
      }
    }
  }
}

TEST_CASE("max_pool2d_backward checks grad_output against the forward's result",
          "[rules][pool]") {
  Tensor x = zeros({1, 2, 6, 6}, TensorOptions(DType::F32));
  CHECK_THROWS_WITH(max_pool2d_backward(zeros({1, 2, 4, 4}, TensorOptions(DType::F32)), x, {2}),
                    Catch::Contains("grad_output") && Catch::Contains("[1, 2, 3, 3]"));
  CHECK_THROWS_WITH(max_pool2d_backward(zeros({1, 2, 3, 3}, TensorOptions(DType::F64)), x, {2}),
                    Catch::Contains("dtype"));
  CHECK_THROWS_WITH(max_pool2d_backward(zeros({1, 2, 3, 3}, TensorOptions(DType::F32)), x, {2},
                                        {}, {2}),
                    Catch::Contains("padding"));
}
