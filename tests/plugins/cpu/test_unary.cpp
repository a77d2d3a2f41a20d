// Math of one tensor on the cpu plugin: PyTorch's results on hand-checked
// cases, special values (NaN, inf, -0), integer wrapping, reduced floats.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "plexus/dispatcher.h"
#include "plexus/ops.h"

using namespace plexus;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

Tensor f32(std::initializer_list<float> v) {
  return tensor<float>(v);
}
bool is_negative_zero(float v) {
  return v == 0 && std::signbit(v);
}
}  // namespace

TEST_CASE("exp, log, sqrt, rsqrt at ordinary and special values", "[unary]") {
  std::vector<float> e = exp(f32({0, 1, -kInf, kInf})).tolist<float>();
  CHECK(e == std::vector<float>{1, std::exp(1.0f), 0, kInf});
  std::vector<float> l = log(f32({1, 0, -1, kInf})).tolist<float>();
  CHECK(l[0] == 0);
  CHECK(l[1] == -kInf);
  CHECK(std::isnan(l[2]));
  CHECK(l[3] == kInf);
  std::vector<float> s = sqrt(f32({4, 2, -1, -0.0f})).tolist<float>();
  CHECK(s[0] == 2);
  CHECK(s[1] == Approx(1.41421356));
  CHECK(std::isnan(s[2]));
  CHECK(is_negative_zero(s[3]));
  CHECK(rsqrt(f32({4, 0, kInf})).tolist<float>() == std::vector<float>{0.5, kInf, 0});
}

TEST_CASE("sin, cos and tanh", "[unary]") {
  std::vector<double> s =
      sin(tensor<double>({0, std::numbers::pi / 2, -std::numbers::pi / 6})).tolist<double>();
  CHECK(s[0] == 0);
  CHECK(s[1] == Approx(1));
  CHECK(s[2] == Approx(-0.5));
  CHECK(cos(tensor<double>({0, std::numbers::pi})).tolist<double>()[1] == Approx(-1));
  std::vector<float> t = tanh(f32({0, kInf, -20, 0.5})).tolist<float>();
  CHECK(t[0] == 0);
  CHECK(t[1] == 1);
  CHECK(t[2] == -1);
  CHECK(t[3] == Approx(0.46211716));
}

TEST_CASE("floating functions of integers compute as float32", "[unary]") {
  Tensor e = exp(tensor<int32_t>({0, 1}));
  CHECK(e.dtype() == DType::F32);
  CHECK(e.tolist<float>() == std::vector<float>{1, std::exp(1.0f)});
  CHECK(sqrt(tensor<bool>({true, false})).tolist<float>() == std::vector<float>{1, 0});
}

TEST_CASE("float16 and bfloat16 compute in float and round on store", "[unary]") {
  CHECK(exp(f32({1}).to(DType::F16)).tolist<float>() == std::vector<float>{2.71875});
  CHECK(sigmoid(f32({0}).to(DType::BF16)).tolist<float>() == std::vector<float>{0.5});
  CHECK(abs(f32({-2.5}).to(DType::F16)).tolist<float>() == std::vector<float>{2.5});
}

TEST_CASE("sigmoid and silu stay finite and accurate at large magnitudes", "[unary]") {
  std::vector<float> s = sigmoid(f32({0, 100, -100, kInf, -kInf, kNaN})).tolist<float>();
  CHECK(s[0] == 0.5);
  CHECK(s[1] == 1);
  CHECK(s[2] > 0);  // exp(-100) is a float32 subnormal, not 0
  CHECK(s[2] < 1e-43f);
  CHECK(s[3] == 1);
  CHECK(s[4] == 0);
  CHECK(std::isnan(s[5]));
  CHECK(sigmoid(tensor<double>({-100})).tolist<double>()[0] == Approx(3.720075976020836e-44));
  std::vector<float> u = silu(f32({0, 1, -1, -1000})).tolist<float>();
  CHECK(u[0] == 0);
  CHECK(u[1] == Approx(0.7310586));
  CHECK(u[2] == Approx(-0.26894142));
  CHECK(is_negative_zero(u[3]));
}

TEST_CASE("gelu, exact (erf) and tanh-approximated", "[unary]") {
  std::vector<double> g = gelu(tensor<double>({1, -1, 0, 3})).tolist<double>();
  CHECK(g[0] == Approx(0.8413447460685429).epsilon(1e-12));
  CHECK(g[1] == Approx(-0.15865525393145707).epsilon(1e-12));
  CHECK(g[2] == 0);
  CHECK(g[3] == Approx(2.99595030590511).epsilon(1e-12));
  std::vector<double> t = gelu(tensor<double>({1, -1}), "tanh").tolist<double>();
  CHECK(t[0] == Approx(0.8411919906082768).epsilon(1e-12));
  CHECK(t[1] == Approx(-0.15880800939172324).epsilon(1e-12));
  CHECK(gelu(f32({1}).to(DType::BF16)).tolist<float>() == std::vector<float>{0.83984375});
}

TEST_CASE("neg and abs wrap integers like PyTorch and handle -0", "[unary]") {
  CHECK(neg(tensor<int8_t>({-128, 5, 0})).tolist<int8_t>() == std::vector<int8_t>{-128, -5, 0});
  CHECK(neg(tensor<uint8_t>({1, 0})).tolist<uint8_t>() == std::vector<uint8_t>{255, 0});
  CHECK(neg(tensor<int64_t>({INT64_MIN})).tolist<int64_t>() == std::vector<int64_t>{INT64_MIN});
  std::vector<float> n = neg(f32({0, -kInf, 2})).tolist<float>();
  CHECK(is_negative_zero(n[0]));
  CHECK(n[1] == kInf);
  CHECK(n[2] == -2);

  CHECK(abs(tensor<int8_t>({-128, -3, 3})).tolist<int8_t>() == std::vector<int8_t>{-128, 3, 3});
  CHECK(abs(tensor<uint8_t>({200})).tolist<uint8_t>() == std::vector<uint8_t>{200});
  CHECK(abs(tensor<int32_t>({INT32_MIN + 1})).tolist<int32_t>() == std::vector<int32_t>{INT32_MAX});
  std::vector<float> a = abs(f32({-0.0f, -kInf, kNaN})).tolist<float>();
  CHECK((a[0] == 0 && !std::signbit(a[0])));
  CHECK(a[1] == kInf);
  CHECK(std::isnan(a[2]));
}

TEST_CASE("relu keeps the dtype; NaN and -0 pass through", "[unary]") {
  CHECK(relu(tensor<int32_t>({-3, 0, 4})).tolist<int32_t>() == std::vector<int32_t>{0, 0, 4});
  CHECK(relu(tensor<uint8_t>({200})).tolist<uint8_t>() == std::vector<uint8_t>{200});
  std::vector<float> r = relu(f32({-1, kNaN, -0.0f, 2})).tolist<float>();
  CHECK(r[0] == 0);
  CHECK(std::isnan(r[1]));
  CHECK(is_negative_zero(r[2]));
  CHECK(r[3] == 2);
}

TEST_CASE("clamp: NaN stays NaN, max wins over a larger min, bounds saturate", "[unary]") {
  Tensor x = f32({-2, 0.5, 3, kNaN});
  std::vector<float> c = clamp(x, -1, 1).tolist<float>();
  CHECK(std::vector<float>(c.begin(), c.begin() + 3) == std::vector<float>{-1, 0.5, 1});
  CHECK(std::isnan(c[3]));
  std::vector<float> swapped = clamp(x, 2, 1).tolist<float>();
  CHECK(std::vector<float>(swapped.begin(), swapped.begin() + 3) == std::vector<float>{1, 1, 1});
  CHECK(clamp(x, std::nullopt, 0).tolist<float>()[2] == 0);
  CHECK(clamp(x, 0).tolist<float>()[0] == 0);
  CHECK(std::isnan(clamp(x, 0).tolist<float>()[3]));
  for (float v : clamp(x, kNaN, 1).tolist<float>()) CHECK(std::isnan(v));
  for (float v : clamp(x, std::nullopt, kNaN).tolist<float>()) CHECK(std::isnan(v));

  Tensor u = tensor<uint8_t>({0, 100, 255});
  CHECK(clamp(u, 10, 20).tolist<uint8_t>() == std::vector<uint8_t>{10, 20, 20});
  CHECK(clamp(u, -5, 300).tolist<uint8_t>() == std::vector<uint8_t>{0, 100, 255});
  CHECK(clamp(tensor<int64_t>({-5, 3}), std::nullopt, -1).tolist<int64_t>() ==
        std::vector<int64_t>{-5, -1});
  Tensor promoted = clamp(tensor<int32_t>({1, 5}), 1.5, 3.5);
  CHECK(promoted.dtype() == DType::F32);
  CHECK(promoted.tolist<float>() == std::vector<float>{1.5, 3.5});
  SECTION("in place on a transposed view") {
    Tensor m = tensor<float>({-5, 0, 5, 10}, {2, 2});
    clamp_(m.t(), 0, 6);
    CHECK(m.tolist<float>() == std::vector<float>{0, 0, 5, 6});
  }
}

TEST_CASE("the catalog's abs composite gives +0 for -0, as the kernel does", "[unary]") {
  // Take the plugin's abs.out away for the test, so the composite runs.
  Dispatcher& d = Dispatcher::get();
  const KernelEntry* e = d.op("abs.out").kernel(kCPU);
  REQUIRE(e != nullptr);
  KernelEntry saved = *e;
  std::string source(saved.source);
  d.unregister_kernel("abs.out", kCPU);
  std::vector<float> got = abs(f32({-0.0f, 0.0f, -2.0f, kNaN, -kInf})).tolist<float>();
  d.register_kernel("abs.out", kCPU, saved.fn, saved.ctx, saved.dtypes, source);
  CHECK(d.op("abs.out").kernel(kCPU) != nullptr);
  CHECK((got[0] == 0 && !std::signbit(got[0])));
  CHECK((got[1] == 0 && !std::signbit(got[1])));
  CHECK(got[2] == 2.0f);
  CHECK(std::isnan(got[3]));
  CHECK(got[4] == kInf);
}
