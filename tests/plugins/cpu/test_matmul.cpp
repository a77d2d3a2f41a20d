// mm, bmm and addmm on the cpu plugin (and matmul and linear, which run on
// them): every catalog dtype, transposed, strided and broadcast operands,
// checked against hand-computed values or a naive loop in double.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "plexus/dtype_dispatch.h"
#include "plexus/ops.h"
#include "plugins/cpu/host_values.h"

using namespace plexus;
using plexus::testing::make;
using plexus::testing::values;

namespace {

// n uniformly drawn integers in [lo, hi], as doubles (exact in every dtype used).
std::vector<double> random_ints(size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

std::vector<double> random_reals(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

// The naive product of a [n, k] and b [k, p] (row-major values) in double.
std::vector<double> naive_mm(const std::vector<double>& a, const std::vector<double>& b, int64_t n,
                             int64_t k, int64_t p) {
  std::vector<double> c(size_t(n * p), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < p; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) s += a[size_t(i * k + q)] * b[size_t(q * p + j)];
      c[size_t(i * p + j)] = s;
    }
  return c;
}

// Every element within abs + rel * |expected|.
void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel,
                 double abs = 0) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i]));
  }
}

const DType kIntTypes[] = {DType::U8, DType::I8, DType::I16, DType::I32, DType::I64};

}  // namespace

TEST_CASE("mm of a hand-checked 2x2 product in every dtype", "[matmul]") {
  for (DType t : {DType::U8, DType::I8, DType::I16, DType::I32, DType::I64, DType::F16, DType::BF16,
                  DType::F32, DType::F64}) {
    INFO(dtype_name(t));
    Tensor a = make(t, {2, 2}, {1, 2, 3, 4}), b = make(t, {2, 2}, {5, 6, 7, 8});
    Tensor c = mm(a, b);
    CHECK(c.dtype() == t);
    CHECK(c.sizes() == IntArrayRef({2, 2}));
    CHECK(values(c) == std::vector<double>{19, 22, 43, 50});
  }
}

TEST_CASE("mm takes transposed and strided operands as they are", "[matmul]") {
  const int64_t n = 37, k = 53, p = 29;
  auto va = random_reals(size_t(n * k), 1), vb = random_reals(size_t(k * p), 2);
  auto want = naive_mm(va, vb, n, k, p);
  for (DType t : {DType::F32, DType::F64, DType::I32}) {
    INFO(dtype_name(t));
    double tol = t == DType::F32 ? 1e-5 : 1e-12;  // absolute and relative
    std::vector<double> a = va, b = vb, w = want;
    if (t == DType::I32) {
      a = random_ints(a.size(), -9, 9, 3), b = random_ints(b.size(), -9, 9, 4);
      w = naive_mm(a, b, n, k, p);
    }
    Tensor A = make(t, {n, k}, a), B = make(t, {k, p}, b);
    // The same matrices stored transposed: [k, n] and [p, k] buffers viewed through .t().
    std::vector<double> at(a.size()), bt(b.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = 0; q < k; ++q) at[size_t(q * n + i)] = a[size_t(i * k + q)];
    for (int64_t q = 0; q < k; ++q)
      for (int64_t j = 0; j < p; ++j) bt[size_t(j * k + q)] = b[size_t(q * p + j)];
    Tensor At = make(t, {k, n}, at).t(), Bt = make(t, {p, k}, bt).t();
    // Every other row and column of a twice-as-large buffer: no unit stride at all.
    std::vector<double> wide(size_t(4 * n * k), 1e9);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = 0; q < k; ++q) wide[size_t(2 * i * 2 * k + 2 * q)] = a[size_t(i * k + q)];
    Tensor As =
        make(t, {2 * n, 2 * k}, wide).slice(0, 0, std::nullopt, 2).slice(1, 0, std::nullopt, 2);
    REQUIRE(As.stride(1) == 2);
    check_close(values(mm(A, B)), w, tol, tol);
    check_close(values(mm(At, B)), w, tol, tol);
    check_close(values(mm(A, Bt)), w, tol, tol);
    check_close(values(mm(At, Bt)), w, tol, tol);
    check_close(values(mm(As, Bt)), w, tol, tol);
  }
}

TEST_CASE("mm with a broadcast (stride 0) operand and into a strided out", "[matmul]") {
  for (DType t : {DType::F32, DType::BF16, DType::F64, DType::I16}) {
    INFO(dtype_name(t));
    // Every row of a is [1, 2, 3]: stride 0 along rows.
    Tensor a = make(t, {1, 3}, {1, 2, 3}).expand({4, 3});
    Tensor b = make(t, {3, 2}, {1, 0, 0, 1, 1, 1});
    CHECK(values(mm(a, b)) == std::vector<double>{4, 5, 4, 5, 4, 5, 4, 5});
    // out is the transpose of a [2, 4] buffer: the kernel writes through its strides.
    Tensor buf = make(t, {2, 4}, std::vector<double>(8, -1));
    mm_out(buf.t(), a, b);
    CHECK(values(buf) == std::vector<double>{4, 4, 4, 4, 5, 5, 5, 5});
  }
}

TEST_CASE("mm_out into one of its own inputs reads the input before writing", "[matmul]") {
  for (DType t : {DType::F32, DType::F16, DType::F64, DType::I32}) {
    INFO(dtype_name(t));
    Tensor a = make(t, {2, 2}, {1, 2, 3, 4}), b = make(t, {2, 2}, {5, 6, 7, 8});
    mm_out(a, a, b);
    CHECK(values(a) == std::vector<double>{19, 22, 43, 50});
    Tensor c = make(t, {2, 2}, {1, 2, 3, 4});
    mm_out(c, b, c);  // [[5, 6], [7, 8]] @ [[1, 2], [3, 4]]
    CHECK(values(c) == std::vector<double>{23, 34, 31, 46});
  }
}

TEST_CASE("mm of integers wraps as the element type does", "[matmul]") {
  // 100*2 + 100*1 = 300 = 44 (mod 256); in int8 that is 44, and 200 * 2 = 400 wraps too.
  CHECK(values(mm(make(DType::U8, {1, 2}, {100, 100}), make(DType::U8, {2, 1}, {2, 1}))) ==
        std::vector<double>{44});
  CHECK(values(mm(make(DType::I8, {1, 2}, {100, -100}), make(DType::I8, {2, 1}, {-2, 1}))) ==
        std::vector<double>{int8_t(-300 & 0xff)});
  CHECK(values(mm(make(DType::I16, {1, 1}, {300}), make(DType::I16, {1, 1}, {300}))) ==
        std::vector<double>{int16_t(90000 - 65536)});
  // int64 keeps every bit: 3e9 * 3e9 would overflow int32 and double.
  Tensor a = empty({1, 2}, DType::I64), b = empty({2, 1}, DType::I64);
  a.data<int64_t>()[0] = 3000000000, a.data<int64_t>()[1] = 1;
  b.data<int64_t>()[0] = 3000000000, b.data<int64_t>()[1] = 7;
  CHECK(mm(a, b).data<int64_t>()[0] == int64_t(9000000000000000007));
}

TEST_CASE("mm of integers and f64 over sizes that span several packed blocks", "[matmul]") {
  // 150 rows (several row blocks), depth 300 (two depth blocks), 530 columns (two column blocks).
  const int64_t n = 150, k = 300, p = 530;
  auto a = random_ints(size_t(n * k), -3, 3, 5), b = random_ints(size_t(k * p), -3, 3, 6);
  auto want = naive_mm(a, b, n, k, p);
  for (DType t : {DType::I16, DType::I32, DType::I64, DType::F64}) {
    INFO(dtype_name(t));
    Tensor A = make(t, {n, k}, a), B = make(t, {k, p}, b);
    CHECK(values(mm(A, B)) == want);
  }
  auto want8 = want;
  for (double& x : want8) x = double(int8_t(int64_t(x) & 0xff));
  CHECK(values(mm(make(DType::I8, {n, k}, a), make(DType::I8, {k, p}, b))) == want8);
  auto ra = random_reals(size_t(n * k), 7), rb = random_reals(size_t(k * p), 8);
  check_close(values(mm(make(DType::F64, {n, k}, ra), make(DType::F64, {k, p}, rb))),
              naive_mm(ra, rb, n, k, p), 1e-12, 1e-12);
}

TEST_CASE("mm in f16 and bf16 matches the product of the rounded inputs", "[matmul]") {
  const int64_t n = 65, k = 130, p = 47;
  auto va = random_reals(size_t(n * k), 9), vb = random_reals(size_t(k * p), 10);
  for (DType t : {DType::F16, DType::BF16}) {
    INFO(dtype_name(t));
    Tensor A = make(t, {n, k}, va), B = make(t, {p, k}, vb).t();
    std::vector<double> b_rows = values(B);
    auto want = naive_mm(values(A), b_rows, n, k, p);
    // Products accumulate in f32; the result is rounded once to the dtype.
    double eps = t == DType::F16 ? 1.0 / 1024 : 1.0 / 128;
    check_close(values(mm(A, B)), want, eps, 1e-3);
  }
}

TEST_CASE("mm with an empty contraction gives zeros, and empty outputs are fine", "[matmul]") {
  for (DType t : {DType::F32, DType::I32, DType::F16}) {
    INFO(dtype_name(t));
    Tensor c = mm(empty({2, 0}, t), empty({0, 3}, t));
    CHECK(values(c) == std::vector<double>(6, 0.0));
    CHECK(mm(empty({0, 4}, t), empty({4, 3}, t)).sizes() == IntArrayRef({0, 3}));
  }
}

TEST_CASE("bmm multiplies each batch, with transposed and broadcast batches", "[matmul]") {
  const int64_t batch = 3, n = 5, k = 4, p = 6;
  auto va = random_ints(size_t(batch * n * k), -5, 5, 11);
  auto vb = random_ints(size_t(batch * k * p), -5, 5, 12);
  std::vector<double> want;
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<double> a(va.begin() + i * n * k, va.begin() + (i + 1) * n * k);
    std::vector<double> b(vb.begin() + i * k * p, vb.begin() + (i + 1) * k * p);
    auto c = naive_mm(a, b, n, k, p);
    want.insert(want.end(), c.begin(), c.end());
  }
  for (DType t : {DType::F32, DType::BF16, DType::F16, DType::F64, DType::I32, DType::U8}) {
    INFO(dtype_name(t));
    // uint8 takes the inputs modulo 256, and so is the product.
    auto mod256 = [&](std::vector<double> v) {
      if (t == DType::U8)
        for (double& x : v) x = double(uint8_t(int64_t(x) & 0xff));
      return v;
    };
    std::vector<double> w = mod256(want);
    Tensor A = make(t, {batch, n, k}, mod256(va)), B = make(t, {batch, k, p}, mod256(vb));
    CHECK(values(bmm(A, B)) == w);
    // B stored as [batch, p, k] and transposed per batch; A stored [n, batch, k].
    Tensor Bt = make(t, {batch, p, k}, values(B.transpose(1, 2))).transpose(1, 2);
    Tensor An = make(t, {n, batch, k}, values(A.transpose(0, 1))).transpose(0, 1);
    CHECK(values(bmm(An, Bt)) == w);
  }
  // One matrix for every batch (batch stride 0).
  Tensor a1 = make(DType::F32, {1, 2, 2}, {1, 2, 3, 4}).expand({3, 2, 2});
  Tensor b = make(DType::F32, {3, 2, 1}, {1, 0, 0, 1, 1, 1});
  CHECK(values(bmm(a1, b)) == std::vector<double>{1, 3, 2, 4, 3, 7});
}

TEST_CASE("addmm scales, adds a broadcast self, and ignores self when beta is 0", "[matmul]") {
  for (DType t : {DType::F32, DType::BF16, DType::F16, DType::F64}) {
    INFO(dtype_name(t));
    Tensor a = make(t, {2, 2}, {1, 2, 3, 4}), b = make(t, {2, 2}, {5, 6, 7, 8});
    Tensor bias = make(t, {2}, {1, -1});  // broadcast over rows: stride 0
    CHECK(values(addmm(bias, a, b)) == std::vector<double>{20, 21, 44, 49});
    CHECK(values(addmm(bias, a, b, 2, 0.5)) == std::vector<double>{11.5, 9, 23.5, 23});
    Tensor nan_self = make(t, {2, 2}, std::vector<double>(4, std::nan("")));
    CHECK(values(addmm(nan_self, a, b, 0, 1)) == std::vector<double>{19, 22, 43, 50});
    CHECK(values(addmm(nan_self, a, b, 0, -1)) == std::vector<double>{-19, -22, -43, -50});
    // out holds NaNs before the call; beta 0 must not read it either.
    Tensor out = make(t, {2, 2}, std::vector<double>(4, std::nan("")));
    addmm_out(out, nan_self, a, b, 0, 1);
    CHECK(values(out) == std::vector<double>{19, 22, 43, 50});
    // A column self [2, 1] and a transposed mat2.
    Tensor col = make(t, {2, 1}, {10, 20});
    Tensor bt = make(t, {2, 2}, {5, 7, 6, 8}).t();
    CHECK(values(addmm(col, a, bt, 1, 1)) == std::vector<double>{29, 32, 63, 70});
  }
  for (DType t : kIntTypes) {
    INFO(dtype_name(t));
    Tensor a = make(t, {2, 2}, {1, 2, 3, 4}), b = make(t, {2, 2}, {5, 6, 7, 8});
    Tensor self = make(t, {2}, {1, 2});
    CHECK(values(addmm(self, a, b, 3, 2)) == std::vector<double>{41, 50, 89, 106});
    CHECK(values(addmm(self, a, b, 0, 1)) == std::vector<double>{19, 22, 43, 50});
  }
}

TEST_CASE("addmm with a large f32 product and self in place of out", "[matmul]") {
  const int64_t n = 64, k = 96, p = 80;
  auto va = random_reals(size_t(n * k), 13), vb = random_reals(size_t(k * p), 14);
  auto vs = random_reals(size_t(n * p), 15);
  auto prod = naive_mm(va, vb, n, k, p);
  std::vector<double> want(prod.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = 0.5 * vs[i] + 2.0 * prod[i];
  for (DType t : {DType::F32, DType::F64}) {
    INFO(dtype_name(t));
    Tensor a = make(t, {n, k}, va), b = make(t, {k, p}, vb), self = make(t, {n, p}, vs);
    check_close(values(addmm(self, a, b, 0.5, 2.0)), want, 1e-5, 1e-5);
    addmm_out(self, self, a, b, 0.5, 2.0);  // out is self
    check_close(values(self), want, 1e-5, 1e-5);
  }
}

TEST_CASE("matmul and linear run on mm, bmm and addmm", "[matmul]") {
  Tensor x = make(DType::F32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor w = make(DType::F32, {2, 3}, {1, 0, 0, 0, 1, 1});  // [out_features, in_features]
  Tensor bias = make(DType::F32, {2}, {0.5, -0.5});
  CHECK(values(linear(x, w)) == std::vector<double>{1, 5, 4, 11, 7, 17, 10, 23});
  Tensor x2 = make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(values(linear(x2, w, bias)) == std::vector<double>{1.5, 4.5, 4.5, 10.5});
  CHECK(values(matmul(x, w.t())) == std::vector<double>{1, 5, 4, 11, 7, 17, 10, 23});
  Tensor v = make(DType::F64, {3}, {1, 1, 1});
  CHECK(values(matmul(x2, make(DType::F32, {3}, {1, 1, 1}))) == std::vector<double>{6, 15});
  CHECK(values(matmul(make(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 6}), v)) ==
        std::vector<double>{6, 15});
}
