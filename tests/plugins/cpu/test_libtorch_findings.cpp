// Bugs a differential test against libtorch 1.13 found (issue 17), one test
// each, on the cpu plugin. Each also has a conformance case class, so every
// plugin is checked for it (named in each test).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "plexus/ops.h"
#include "plugins/cpu/host_values.h"

using namespace plexus;
using plexus::testing::make;
using plexus::testing::values;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

// conformance: bmm.out/*/expanded_both, mm.out/*/expanded_both
TEST_CASE("bmm and matmul with both batches broadcast (stride 0)", "[matmul]") {
  for (DType dt : {DType::F32, DType::BF16, DType::F16, DType::F64}) {
    INFO(dtype_name(dt));
    Tensor a = make(dt, {1, 2, 3}, {1, 2, 3, 4, 5, 6}).expand({4, 2, 3});
    Tensor b = make(dt, {1, 3, 2}, {1, 0, 0, 1, 1, 1}).expand({4, 3, 2});
    std::vector<double> got = values(bmm(a, b));
    REQUIRE(got.size() == 16);
    for (int i = 0; i < 4; ++i) {
      CHECK(got[size_t(4 * i)] == 4);
      CHECK(got[size_t(4 * i + 1)] == 5);
      CHECK(got[size_t(4 * i + 2)] == 10);
      CHECK(got[size_t(4 * i + 3)] == 11);
    }
  }
  // matmul(f32[5], f32[3, 5, 5] with strides (0, 5, 0)) reaches the same bmm.
  Tensor v = make(DType::F32, {5}, {1, 1, 1, 1, 1});
  Tensor m = make(DType::F32, {5}, {1, 2, 3, 4, 5}).as_strided({3, 5, 5}, {0, 1, 0});
  std::vector<double> got = values(matmul(v, m));
  REQUIRE(got.size() == 15);
  for (double x : got) CHECK(x == 15);
}

// conformance: addmm.out/*/alpha0_after_special, alpha0_special_operands
TEST_CASE("addmm with alpha 0 drops the product, also after a product of NaNs", "[matmul]") {
  for (DType dt : {DType::BF16, DType::F32, DType::F16}) {
    INFO(dtype_name(dt));
    Tensor self = make(dt, {2, 2}, {1, 2, 3, 4});
    Tensor ones = make(dt, {2, 2}, {1, 1, 1, 1});
    Tensor nans = make(dt, {2, 2}, {kNaN, 1, kInf, 1});
    Tensor scaled = addmm(self, nans, ones, 1, 2);  // leaves NaN wherever the kernel keeps state
    CHECK(std::isnan(values(scaled)[0]));
    CHECK(values(addmm(self, ones, ones, 0.5, 0)) == std::vector<double>{0.5, 1, 1.5, 2});
    CHECK(values(addmm(self, nans, ones, 1, 0)) == std::vector<double>{1, 2, 3, 4});
  }
}

// conformance: conv2d.out/*/special_edges_*
TEST_CASE("conv2d: a NaN or inf input reaches only the outputs whose windows cover it", "[conv]") {
  for (DType dt : {DType::BF16, DType::F32, DType::F16, DType::F64}) {
    INFO(dtype_name(dt));
    for (double special : {kNaN, kInf}) {
      std::vector<double> x(10, 1.0);
      x[5] = special;
      Tensor out = conv2d(make(dt, {1, 1, 1, 10}, x), make(dt, {1, 1, 1, 3}, {1, 1, 1}));
      std::vector<double> got = values(out);
      REQUIRE(got.size() == 8);
      for (size_t i = 0; i < 8; ++i) {
        INFO("output " << i);
        if (i >= 3 && i <= 5) CHECK(!std::isfinite(got[i]));
        else CHECK(got[i] == 3);
      }
    }
  }
}

// conformance: sum.IntList_out/*/long_strided, mean.out/*/long_strided
TEST_CASE("a long float32 sum through a strided view is as accurate as a contiguous one",
          "[reduce]") {
  const int64_t n = int64_t{1} << 22;
  Tensor t = full({2 * n}, 0.1, TensorOptions(DType::F32));
  const double want = double(0.1f) * double(n);
  double strided = values(sum(t.as_strided({n}, {2})))[0];
  double mean_strided = values(mean(t.as_strided({n}, {2})))[0];
  CHECK(std::abs(strided - want) / want < 4e-6);
  CHECK(std::abs(mean_strided - double(0.1f)) / 0.1 < 4e-6);
  // Two dims reduced through a transposed view go the same way.
  Tensor m = t.as_strided({2048, 1024}, {2, 4096});
  CHECK(std::abs(values(sum(m))[0] - double(0.1f) * 2048 * 1024) / (0.1 * 2048 * 1024) < 4e-6);
}

// conformance: fill_.Scalar/*/expanded, empty_expanded; copy_/*/empty_expanded_self
TEST_CASE("fill_ writes into an expanded view; empty written views never overlap", "[copy]") {
  Tensor base = make(DType::F32, {1, 3}, {1, 2, 3});
  Tensor expanded = base.expand({4, 3});
  expanded.fill_(2.5);
  CHECK(values(base) == std::vector<double>{2.5, 2.5, 2.5});
  CHECK(values(expanded) == std::vector<double>(12, 2.5));
  // Other ops still refuse an expanded written tensor.
  CHECK_THROWS_WITH(expanded.copy_(make(DType::F32, {4, 3}, std::vector<double>(12, 1))),
                    Catch::Contains("share memory"));
  // No elements, stride-0 dims: nothing to write, nothing overlaps.
  Tensor empty_expanded = make(DType::F32, {1, 1}, {7}).expand({0, 5});
  CHECK(empty_expanded.is_contiguous());
  empty_expanded.copy_(make(DType::F32, {0, 5}, {}));
  empty_expanded.fill_(1);
  Tensor zero_strides = make(DType::F32, {1}, {7}).as_strided({3, 0, 2}, {0, 0, 0});
  zero_strides.copy_(make(DType::F64, {3, 0, 2}, {}));
  CHECK(values(make(DType::F32, {1}, {7})) == std::vector<double>{7});
}

TEST_CASE("mse_loss promotes a bool or integer tensor before subtracting", "[loss]") {
  Tensor a = make(DType::Bool, {3}, {1, 0, 1});
  Tensor b = make(DType::F32, {3}, {0.5, 0.5, 0.5});
  CHECK(values(mse_loss(a, b)) == std::vector<double>{0.25});
  CHECK(values(mse_loss(b, make(DType::I64, {3}, {1, 2, 3}), 2)) ==
        std::vector<double>{0.25 + 2.25 + 6.25});
  CHECK(mse_loss(b, make(DType::I64, {3}, {1, 2, 3})).dtype() == DType::F32);
}
