// Seeded random tensors on the device: the Generator's stream, layouts,
// statistics, randperm and the errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "plexus/nn.h"
#include "plexus/ops.h"
#include "plexus/random.h"

using namespace plexus;
using Catch::Contains;

namespace {
double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}
double var_of(const std::vector<double>& v) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / double(v.size());
}
}  // namespace

TEST_CASE("a seed gives one stream: draws continue it, manual_seed restarts it", "[random]") {
  Generator a(42), b(42);
  std::vector<float> first = rand({7}, a).tolist<float>();
  std::vector<float> second = rand({5}, a).tolist<float>();
  std::vector<float> whole = rand({12}, b).tolist<float>();
  first.insert(first.end(), second.begin(), second.end());
  CHECK(first == whole);
  CHECK(a.offset() == 12);
  a.manual_seed(42);
  CHECK(rand({12}, a).tolist<float>() == whole);
  Generator c(43);
  CHECK(rand({12}, c).tolist<float>() != whole);
  // set_offset replays from a position.
  a.set_offset(7);
  CHECK(rand({5}, a).tolist<float>() == second);
}

TEST_CASE("element i of self is drawn from position offset + i, whatever self's layout",
          "[random]") {
  Tensor dense = zeros({6, 5});
  uniform_(dense, 0, 1, 11, 100);
  // A transposed view takes the stream in its own row-major order.
  Tensor storage = zeros({5, 6});
  Tensor view = storage.t();  // [6, 5], strides (1, 6)
  uniform_(view, 0, 1, 11, 100);
  CHECK(view.contiguous().tolist<float>() == dense.tolist<float>());
  // The offset shifts the stream by whole elements.
  Tensor shifted = zeros({29});
  uniform_(shifted, 0, 1, 11, 101);
  std::vector<float> d = dense.tolist<float>(), s = shifted.tolist<float>();
  CHECK(std::vector<float>(d.begin() + 1, d.end()) == s);
}

TEST_CASE("uniform, normal and bernoulli have their distributions", "[random]") {
  Generator gen(7);
  const int64_t n = 1 << 20;
  std::vector<double> u = rand({n}, gen, DType::F64).tolist<double>();
  CHECK(*std::min_element(u.begin(), u.end()) >= 0);
  CHECK(*std::max_element(u.begin(), u.end()) < 1);
  CHECK(mean_of(u) == Approx(0.5).margin(0.002));
  CHECK(var_of(u) == Approx(1.0 / 12).margin(0.001));
  std::vector<double> z = randn({n}, gen, DType::F64, 3, 2).tolist<double>();
  CHECK(mean_of(z) == Approx(3).margin(0.01));
  CHECK(std::sqrt(var_of(z)) == Approx(2).margin(0.01));
  // About 68.3% within one standard deviation.
  double within =
      double(std::count_if(z.begin(), z.end(), [](double x) { return std::abs(x - 3) < 2; })) /
      double(n);
  CHECK(within == Approx(0.6827).margin(0.003));
  Tensor mask = empty({n}, DType::F32);
  bernoulli_(mask, 0.3, gen);
  std::vector<float> m = mask.tolist<float>();
  CHECK(std::all_of(m.begin(), m.end(), [](float v) { return v == 0 || v == 1; }));
  CHECK(std::accumulate(m.begin(), m.end(), 0.0) / double(n) == Approx(0.3).margin(0.002));
  // Every dtype takes a bernoulli draw; p = 0 and p = 1 are certain.
  Tensor ints = empty({1000}, DType::I32);
  bernoulli_(ints, 1.0, gen);
  CHECK(ints.sum().item<int64_t>() == 1000);
  Tensor flags = empty({1000}, DType::Bool);
  bernoulli_(flags, 0.0, gen);
  CHECK(flags.to(DType::I64).sum().item<int64_t>() == 0);
}

TEST_CASE("float16 and bfloat16 draw the float32 stream, rounded once", "[random]") {
  for (DType t : {DType::F16, DType::BF16}) {
    Generator a(5), b(5);
    Tensor narrow = rand({257}, a, t);
    Tensor wide = rand({257}, b, DType::F32).to(t);
    CHECK(narrow.to(DType::F32).tolist<float>() == wide.to(DType::F32).tolist<float>());
  }
}

TEST_CASE("randperm is a seeded permutation", "[random]") {
  Generator a(3), b(3), c(4);
  std::vector<int64_t> p = randperm(1000, a);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  CHECK(sorted == iota);
  CHECK(p != iota);
  CHECK(randperm(1000, b) == p);
  CHECK(randperm(1000, c) != p);
  CHECK(randperm(0, a).empty());
  CHECK(randperm(1, a) == std::vector<int64_t>{0});
}

TEST_CASE("default generators are per device and manual_seed seeds them all", "[random]") {
  manual_seed(9);
  Generator& g = default_generator();
  CHECK(&g == &default_generator(Device()));
  CHECK(g.seed() == 9);
  CHECK(g.offset() == 0);
  std::vector<float> v = rand({4}, g).tolist<float>();
  manual_seed(9);
  CHECK(rand({4}, default_generator()).tolist<float>() == v);
  manual_seed(0);
}

TEST_CASE("random ops refuse bad arguments before writing", "[random]") {
  Tensor t = full({4}, 2.0f);
  CHECK_THROWS_WITH(uniform_(t, 1, 0, 0, 0), Contains("from <= to"));
  CHECK_THROWS_WITH(normal_(t, 0, -1, 0, 0), Contains("std"));
  CHECK_THROWS_WITH(bernoulli_(t, 1.5, 0, 0), Contains("probability in [0, 1]"));
  CHECK_THROWS_WITH(uniform_(t, 0, 1, 0, uint64_t{1} << 63), Contains("below 2^63"));
  CHECK(t.tolist<float>() == std::vector<float>(4, 2.0f));
  Tensor ints = zeros({4}, DType::I32);
  CHECK_THROWS_WITH(uniform_(ints, 0, 1, 0, 0), Contains("floating"));
  Generator gen(1);
  CHECK_THROWS_WITH(rand({2}, gen, DType::I64), Contains("floating"));
}
