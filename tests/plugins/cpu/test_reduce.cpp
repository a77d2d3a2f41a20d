// The cpu plugin's reductions (sum, mean, amax, amin, argmax, argmin) on small
// hand-checked cases, and a few large ones that take the parallel paths.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "plexus/factories.h"
#include "plexus/ops.h"

using namespace plexus;
using Sizes = std::vector<int64_t>;
using Floats = std::vector<float>;
using Longs = std::vector<int64_t>;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// [[1, 2, 3], [4, 5, 6]]
Tensor m23() {
  return tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
}

// [2, 3, 2] holding 0 .. 11.
Tensor t232() {
  return tensor<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 3, 2});
}

Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}

// n floats i * step, as a tensor of shape {n}.
Tensor ramp(int64_t n, float step) {
  Tensor t = empty({n}, TensorOptions(DType::F32));
  float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i) * step;
  return t;
}

}  // namespace

TEST_CASE("sum over every dim, one dim, several dims", "[reduce]") {
  CHECK(sum(m23()).tolist<float>() == Floats{21});
  CHECK(sum(m23()).dim() == 0);
  CHECK(sum(m23(), Sizes{0}).tolist<float>() == Floats{5, 7, 9});
  CHECK(sum(m23(), Sizes{1}).tolist<float>() == Floats{6, 15});
  CHECK(sum(m23(), Sizes{-1}).tolist<float>() == Floats{6, 15});
  CHECK(sum(t232(), Sizes{0, 2}).tolist<float>() ==
        Floats{0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11});
  CHECK(sum(t232(), Sizes{-1, 1}).tolist<float>() == Floats{15, 51});
}

TEST_CASE("sum with keepdim leaves size-1 dims", "[reduce]") {
  Tensor s = sum(m23(), Sizes{1}, true);
  CHECK(sizes_of(s) == Sizes{2, 1});
  CHECK(s.tolist<float>() == Floats{6, 15});
  Tensor all = sum(t232(), std::nullopt, true);
  CHECK(sizes_of(all) == Sizes{1, 1, 1});
  CHECK(all.tolist<float>() == Floats{66});
  CHECK(sizes_of(sum(t232(), Sizes{0, 2}, true)) == Sizes{1, 3, 1});
}

TEST_CASE("sum of strided views", "[reduce]") {
  Tensor t = m23().t();  // [[1, 4], [2, 5], [3, 6]], strides [1, 3]
  CHECK(sum(t, Sizes{0}).tolist<float>() == Floats{6, 15});
  CHECK(sum(t, Sizes{1}).tolist<float>() == Floats{5, 7, 9});
  CHECK(sum(t).tolist<float>() == Floats{21});
  Tensor every_other = t232().slice(1, 0, 3, 2);  // [2, 2, 2]: rows 0 and 2 of dim 1
  CHECK(sum(every_other, Sizes{1}).tolist<float>() == Floats{4, 6, 16, 18});
  CHECK(sum(every_other, Sizes{0, 2}).tolist<float>() == Floats{0 + 1 + 6 + 7, 4 + 5 + 10 + 11});
}

TEST_CASE("sum and amax over dims that do not merge, into kept columns", "[reduce]") {
  Tensor x = ramp(3 * 6 * 8, 1).view({3, 6, 8}).slice(1, 0, 5);  // [3, 5, 8], strides 48, 8, 1
  Floats want_sum(8, 0), want_max(8, -1);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 8; ++c) {
        float v = static_cast<float>(a * 48 + b * 8 + c);
        want_sum[c] += v;
        want_max[c] = std::max(want_max[c], v);
      }
  CHECK(sum(x, Sizes{0, 1}).tolist<float>() == want_sum);
  CHECK(amax(x, {0, 1}).tolist<float>() == want_max);
  CHECK(mean(x, Sizes{1, 0}, true).tolist<float>()[3] == Approx(want_sum[3] / 15));
}

TEST_CASE("sum into a strided out", "[reduce]") {
  Tensor out = zeros({2, 2});
  sum_out(out.select(1, 0), m23(), Sizes{1});  // out[:, 0]: stride 2
  CHECK(out.tolist<float>() == Floats{6, 0, 15, 0});
}

TEST_CASE("sum of integers and bools accumulates in int64", "[reduce]") {
  Tensor i8 = tensor<int8_t>({100, 100, 100}, {3});
  Tensor s = sum(i8);
  CHECK(s.dtype() == DType::I64);
  CHECK(s.tolist<int64_t>() == Longs{300});
  Tensor b = tensor<bool>({true, false, true, true}, {2, 2});
  CHECK(sum(b).tolist<int64_t>() == Longs{3});
  CHECK(sum(b, Sizes{0}).tolist<int64_t>() == Longs{2, 1});
  Tensor big = tensor<int64_t>({int64_t{1} << 40, int64_t{1} << 40, -3}, {3});
  CHECK(sum(big).tolist<int64_t>() == Longs{(int64_t{1} << 41) - 3});
  Tensor u8 = tensor<uint8_t>({200, 100}, {2});
  CHECK(sum(u8).tolist<int64_t>() == Longs{300});
}

TEST_CASE("sum with dtype computes in that dtype", "[reduce]") {
  Tensor i = tensor<int32_t>({1, 2, 3, 4}, {2, 2});
  Tensor d = sum(i, Sizes{1}, false, DType::F64);
  CHECK(d.dtype() == DType::F64);
  CHECK(d.tolist<double>() == std::vector<double>{3, 7});
  Tensor wrapped = sum(tensor<int8_t>({100, 100}, {2}), std::nullopt, false, DType::I8);
  CHECK(wrapped.dtype() == DType::I8);
  CHECK(wrapped.tolist<int8_t>() == std::vector<int8_t>{-56});  // 200 wraps, as in PyTorch
}

TEST_CASE("sum of float16 and bfloat16 accumulates in float", "[reduce]") {
  // 2048 + 1 is not a float16 (spacing 2 there): a float16 accumulator would stop at 2048.
  Tensor ones_h = ones({4096}, TensorOptions(DType::F16));
  Tensor s = sum(ones_h);
  CHECK(s.dtype() == DType::F16);
  CHECK(s.tolist<float>() == Floats{4096});
  Tensor ones_b = ones({1000}, TensorOptions(DType::BF16));
  CHECK(sum(ones_b).tolist<float>() == Floats{1000});  // 256 + 1 is not a bfloat16
  Tensor h = m23().to(DType::F16);
  CHECK(sum(h, Sizes{0}).tolist<float>() == Floats{5, 7, 9});
}

TEST_CASE("sum and mean of empty tensors", "[reduce]") {
  Tensor e = empty({0, 3}, TensorOptions(DType::F32));
  CHECK(sum(e, Sizes{0}).tolist<float>() == Floats{0, 0, 0});
  CHECK(sizes_of(sum(e, Sizes{1})) == Sizes{0});
  CHECK(sum(e).tolist<float>() == Floats{0});
  Tensor m = mean(e, Sizes{0});
  REQUIRE(m.numel() == 3);
  for (float v : m.tolist<float>()) CHECK(std::isnan(v));
  CHECK(sum(empty({0}, TensorOptions(DType::I64))).tolist<int64_t>() == Longs{0});
}

TEST_CASE("sum and mean of a 0-d tensor", "[reduce]") {
  Tensor s = full({}, 2.5, TensorOptions(DType::F32));
  CHECK(sum(s).tolist<float>() == Floats{2.5});
  CHECK(mean(s).tolist<float>() == Floats{2.5});
  CHECK(sum(s, Sizes{0}).tolist<float>() == Floats{2.5});
}

TEST_CASE("mean", "[reduce]") {
  CHECK(mean(m23()).tolist<float>() == Floats{3.5});
  CHECK(mean(m23(), Sizes{1}).tolist<float>() == Floats{2, 5});
  CHECK(mean(m23().t(), Sizes{1}, true).tolist<float>() == Floats{2.5, 3.5, 4.5});
  CHECK(mean(t232(), Sizes{0, 2}).tolist<float>() == Floats{3.5, 5.5, 7.5});
  Tensor h = mean(m23().to(DType::BF16), Sizes{0});
  CHECK(h.dtype() == DType::BF16);
  CHECK(h.tolist<float>() == Floats{2.5, 3.5, 4.5});
  Tensor d = mean(tensor<int32_t>({1, 2}, {2}), std::nullopt, false, DType::F64);
  CHECK(d.tolist<double>() == std::vector<double>{1.5});
}

TEST_CASE("a long float sum stays accurate (pairwise, over threads)", "[reduce]") {
  int64_t n = 3'000'001;
  Tensor t = ramp(n, 1e-3f);
  double expect = 0;
  const float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) expect += p[i];
  double got = sum(t).item<double>();
  CHECK(got == Approx(expect).epsilon(1e-6));
  CHECK(mean(t).item<double>() == Approx(expect / static_cast<double>(n)).epsilon(1e-6));
  CHECK(sum(ones({1 << 22})).tolist<float>() == Floats{4194304});
}

TEST_CASE("column sums of tall and wide matrices", "[reduce]") {
  Tensor tall = ones({300000, 3});  // few outputs: the rows are split over threads
  CHECK(sum(tall, Sizes{0}).tolist<float>() == Floats{300000, 300000, 300000});
  Tensor wide = ones({70, 1000});  // several column blocks
  Floats col(1000, 70);
  CHECK(sum(wide, Sizes{0}).tolist<float>() == col);
  Floats row(70, 1000);
  CHECK(sum(wide, Sizes{1}).tolist<float>() == row);
  CHECK(sum(wide.t(), Sizes{1}).tolist<float>() == col);
}

TEST_CASE("amax and amin", "[reduce]") {
  Tensor t = tensor<float>({3, -1, 7, 2, 9, -4}, {2, 3});
  CHECK(amax(t).tolist<float>() == Floats{9});
  CHECK(amin(t).tolist<float>() == Floats{-4});
  CHECK(amax(t, {0}).tolist<float>() == Floats{3, 9, 7});
  CHECK(amin(t, {-1}, true).tolist<float>() == Floats{-1, -4});
  CHECK(sizes_of(amin(t, {-1}, true)) == Sizes{2, 1});
  CHECK(amax(t.t(), {1}).tolist<float>() == Floats{3, 9, 7});
  CHECK(amax(t232(), {0, 2}).tolist<float>() == Floats{7, 9, 11});
  CHECK(amax(tensor<float>({-kInf, -kInf}, {2})).tolist<float>() == Floats{-kInf});
}

TEST_CASE("amax and amin propagate NaN", "[reduce]") {
  Tensor t = tensor<float>({1, kNaN, 3, 4, 5, 6}, {2, 3});
  CHECK(std::isnan(amax(t).item<float>()));
  CHECK(std::isnan(amin(t).item<float>()));
  Floats rows = amax(t, {1}).tolist<float>();
  CHECK(std::isnan(rows[0]));
  CHECK(rows[1] == 6);
  Floats cols = amin(t, {0}).tolist<float>();
  CHECK(cols[0] == 1);
  CHECK(std::isnan(cols[1]));
  CHECK(cols[2] == 3);
}

TEST_CASE("amax and amin of integers, bools and halves", "[reduce]") {
  Tensor i = tensor<int32_t>({5, -7, 2, 9}, {2, 2});
  CHECK(amax(i).tolist<int32_t>() == std::vector<int32_t>{9});
  CHECK(amin(i, {1}).tolist<int32_t>() == std::vector<int32_t>{-7, 2});
  Tensor u = tensor<uint8_t>({200, 3}, {2});
  CHECK(amax(u).tolist<uint8_t>() == std::vector<uint8_t>{200});
  Tensor b = tensor<bool>({false, true, false, false}, {2, 2});
  CHECK(amax(b, {1}).tolist<bool>() == std::vector<bool>{true, false});
  CHECK(amin(b, {0}).tolist<bool>() == std::vector<bool>{false, false});
  Tensor h = tensor<float>({0.1f, 65504, -3}, {3}).to(DType::F16);
  Tensor hm = amax(h);
  CHECK(hm.dtype() == DType::F16);
  CHECK(hm.tolist<float>() == Floats{65504});
  CHECK(amin(h).tolist<float>() == Floats{-3});
}

TEST_CASE("argmax and argmin", "[reduce]") {
  Tensor t = tensor<float>({3, 9, 7, 9, 0, -2}, {2, 3});
  CHECK(argmax(t).tolist<int64_t>() == Longs{1});  // ties: the first
  CHECK(argmin(t).tolist<int64_t>() == Longs{5});
  CHECK(argmax(t, 1).tolist<int64_t>() == Longs{1, 0});
  CHECK(argmax(t, 0).tolist<int64_t>() == Longs{1, 0, 0});
  CHECK(argmin(t, -1, true).tolist<int64_t>() == Longs{0, 2});
  CHECK(sizes_of(argmin(t, -1, true)) == Sizes{2, 1});
  CHECK(sizes_of(argmax(t, std::nullopt, true)) == Sizes{1, 1});
  Tensor e = argmax(t);
  CHECK(e.dtype() == DType::I64);
  CHECK(e.dim() == 0);
}

TEST_CASE("argmax and argmin of strided views count in the view's order", "[reduce]") {
  Tensor t = tensor<float>({3, 9, 7, 8, 0, -2}, {2, 3}).t();  // [[3, 8], [9, 0], [7, -2]]
  CHECK(argmax(t).tolist<int64_t>() == Longs{2});             // flattened: 3, 8, 9, 0, 7, -2
  CHECK(argmin(t).tolist<int64_t>() == Longs{5});
  CHECK(argmax(t, 0).tolist<int64_t>() == Longs{1, 0});
  CHECK(argmax(t, 1).tolist<int64_t>() == Longs{1, 0, 0});
  Tensor three = t232().permute({2, 0, 1});  // [2, 2, 3]
  CHECK(argmax(three, 1).tolist<int64_t>() == Longs{1, 1, 1, 1, 1, 1});
  CHECK(argmin(three, 2, true).tolist<int64_t>() == Longs{0, 0, 0, 0});
}

TEST_CASE("argmax and argmin return the first NaN", "[reduce]") {
  Tensor t = tensor<float>({1, kNaN, 5, kNaN, 2, 0}, {2, 3});
  CHECK(argmax(t).tolist<int64_t>() == Longs{1});
  CHECK(argmin(t).tolist<int64_t>() == Longs{1});
  CHECK(argmax(t, 1).tolist<int64_t>() == Longs{1, 0});
  CHECK(argmin(t, 0).tolist<int64_t>() == Longs{1, 0, 1});
}

TEST_CASE("argmax and argmin of integers, halves and 0-d tensors", "[reduce]") {
  Tensor i = tensor<int64_t>({-5, 4, 4, -5}, {4});
  CHECK(argmax(i).tolist<int64_t>() == Longs{1});
  CHECK(argmin(i).tolist<int64_t>() == Longs{0});
  Tensor u = tensor<uint8_t>({1, 255, 0}, {3});
  CHECK(argmax(u).tolist<int64_t>() == Longs{1});
  Tensor h = tensor<float>({0.5f, -1, 2}, {3}).to(DType::F16);
  CHECK(argmax(h).tolist<int64_t>() == Longs{2});
  Tensor s = full({}, 4.0, TensorOptions(DType::F32));
  CHECK(argmax(s).tolist<int64_t>() == Longs{0});
  CHECK(argmin(s, 0).tolist<int64_t>() == Longs{0});
}

TEST_CASE("argmax over many elements finds the first of equal maxima", "[reduce]") {
  Tensor t = zeros({1 << 20});
  float* p = t.data<float>();
  p[700000] = 3;
  p[900000] = 3;
  p[100] = -1;
  CHECK(argmax(t).tolist<int64_t>() == Longs{700000});
  CHECK(argmin(t).tolist<int64_t>() == Longs{100});
  p[800000] = kNaN;
  p[800001] = kNaN;
  CHECK(argmax(t).tolist<int64_t>() == Longs{800000});
  CHECK(argmin(t.view({1024, 1024}), 1).tolist<int64_t>()[781] ==
        256);  // 800000 = 781 * 1024 + 256
  Tensor cols = zeros({100000, 4});
  cols.data<float>()[4 * 5000 + 2] = 1;
  CHECK(argmax(cols, 0).tolist<int64_t>() == Longs{0, 0, 5000, 0});
}
