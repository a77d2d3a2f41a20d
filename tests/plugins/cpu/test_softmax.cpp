// The cpu plugin's softmax and log_softmax kernels on small hand-checked cases.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plugins/cpu/float_tensors.h"

using namespace plexus;
using plexus::testing::check_close;
using plexus::testing::Floats;
using plexus::testing::iota;
using plexus::testing::kInf;
using plexus::testing::kNaN;
using plexus::testing::Sizes;
using plexus::testing::sizes_of;

namespace {

// softmax of a row in double, as the reference.
Floats softmax_ref(const Floats& x, bool log) {
  double m = -INFINITY, s = 0;
  for (float v : x) m = std::max<double>(m, v);
  for (float v : x) s += std::exp(v - m);
  Floats y;
  for (float v : x)
    y.push_back(static_cast<float>(log ? v - m - std::log(s) : std::exp(v - m) / s));
  return y;
}

}  // namespace

TEST_CASE("softmax and log_softmax of a row", "[softmax]") {
  Tensor x = tensor<float>({1, 2, 3}, {3});
  check_close(softmax(x, 0).tolist<float>(), {0.09003057f, 0.24472847f, 0.66524096f});
  check_close(log_softmax(x, -1).tolist<float>(), {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST_CASE("softmax is stable for large inputs and exact for -inf", "[softmax]") {
  Tensor x = tensor<float>({1000, 1001, -kInf}, {3});
  check_close(softmax(x, 0).tolist<float>(), {0.26894142f, 0.73105858f, 0});
  check_close(log_softmax(x, 0).tolist<float>(), {-1.31326169f, -0.31326169f, -kInf});
  Tensor far = tensor<float>({0, -200}, {2});
  CHECK(softmax(far, 0).tolist<float>() == Floats{1, 0});
}

TEST_CASE("softmax of a row with NaN is NaN", "[softmax]") {
  Tensor x = tensor<float>({1, kNaN, 3, 4, 5, 6}, {2, 3});
  Floats y = softmax(x, 1).tolist<float>();
  for (int i = 0; i < 3; ++i) CHECK(std::isnan(y[i]));
  check_close({y[3], y[4], y[5]}, {0.09003057f, 0.24472847f, 0.66524096f});
  Floats ly = log_softmax(x, 1).tolist<float>();
  CHECK(std::isnan(ly[0]));
  CHECK(ly[5] == Approx(-0.40760596f));
}

TEST_CASE("softmax along a leading dim and of strided views", "[softmax]") {
  Tensor x = tensor<float>({1, 2, 3, 4}, {2, 2});
  check_close(softmax(x, 0).tolist<float>(), {0.11920292f, 0.11920292f, 0.88079708f, 0.88079708f});
  check_close(softmax(x.t(), 1).tolist<float>(),
              {0.11920292f, 0.88079708f, 0.11920292f, 0.88079708f});
  Tensor t = iota({2, 3, 2});  // along the middle dim: rows of stride 2
  Floats row = softmax_ref({0, 2, 4}, false);
  check_close(softmax(t, 1).tolist<float>(), {row[0], row[0], row[1], row[1], row[2], row[2],
                                              row[0], row[0], row[1], row[1], row[2], row[2]});
}

TEST_CASE("softmax along a leading dim of wide rows matches a double reference", "[softmax]") {
  int64_t n = 5, k = 300;  // k: a full block of columns and a partial one
  Tensor x = empty({n, k}, TensorOptions(DType::F32));
  for (int64_t i = 0; i < n * k; ++i)
    x.data<float>()[i] = std::cos(0.1f * static_cast<float>(i)) * 30;
  Floats y = softmax(x, 0).tolist<float>(), ly = log_softmax(x, 0).tolist<float>();
  for (int64_t j : {0, 7, 255, 256, 299}) {
    Floats column;
    for (int64_t r = 0; r < n; ++r) column.push_back(x.data<float>()[r * k + j]);
    Floats want = softmax_ref(column, false), lwant = softmax_ref(column, true);
    INFO("column " << j);
    for (int64_t r = 0; r < n; ++r) {
      CHECK(y[r * k + j] == Approx(want[r]).epsilon(1e-5).margin(1e-7));
      CHECK(ly[r * k + j] == Approx(lwant[r]).epsilon(1e-5).margin(1e-6));
    }
  }
  Tensor d = softmax(x.to(DType::F64), 0);
  CHECK(d.tolist<double>()[299] == Approx(y[299]).epsilon(1e-5));
}

TEST_CASE("softmax into a strided out", "[softmax]") {
  Tensor out = zeros({3, 2});
  softmax_out(out.select(1, 1), tensor<float>({1, 2, 3}, {3}), 0);
  check_close(out.tolist<float>(), {0, 0.09003057f, 0, 0.24472847f, 0, 0.66524096f});
}

TEST_CASE("softmax rows of every length match a double reference", "[softmax]") {
  int64_t rows = 5;  // more rows than threads: each row's max is found during the one before
  for (int64_t n : {1, 7, 8, 15, 16, 17, 33, 100, 1000}) {
    Tensor x = empty({rows, n}, TensorOptions(DType::F32));
    std::vector<Floats> want(rows), lwant(rows);
    for (int64_t r = 0; r < rows; ++r) {
      Floats row;
      for (int64_t i = 0; i < n; ++i)
        row.push_back(std::sin(0.37f * static_cast<float>(i) + static_cast<float>(r)) * 20 +
                      static_cast<float>(r * r));
      std::copy(row.begin(), row.end(), x.data<float>() + r * n);
      want[r] = softmax_ref(row, false);
      lwant[r] = softmax_ref(row, true);
    }
    Floats got = softmax(x, 1).tolist<float>(), lgot = log_softmax(x, 1).tolist<float>();
    for (int64_t r = 0; r < rows; ++r) {
      INFO("n = " << n << ", row " << r);
      check_close(Floats(got.begin() + r * n, got.begin() + (r + 1) * n), want[r], 1e-5);
      check_close(Floats(lgot.begin() + r * n, lgot.begin() + (r + 1) * n), lwant[r], 1e-5, 1e-6);
    }
  }
}

TEST_CASE("softmax in float16, bfloat16, float64 and with dtype", "[softmax]") {
  Floats want{0.09003057f, 0.24472847f, 0.66524096f};
  Tensor x = tensor<float>({1, 2, 3}, {3});
  Tensor h = softmax(x.to(DType::F16), 0);
  CHECK(h.dtype() == DType::F16);
  check_close(h.tolist<float>(), want, 1e-3);
  check_close(softmax(x.to(DType::BF16), 0).tolist<float>(), want, 1e-2);
  double s = std::exp(-2.0) + std::exp(-1.0) + 1;
  Tensor d = softmax(x.to(DType::F64), 0);
  CHECK(d.tolist<double>()[2] == Approx(1 / s).epsilon(1e-14));
  Tensor as_double = log_softmax(x, 0, DType::F64);
  CHECK(as_double.dtype() == DType::F64);
  CHECK(as_double.tolist<double>()[0] == Approx(-2 - std::log(s)).epsilon(1e-14));
}

TEST_CASE("softmax of 0-d and empty tensors", "[softmax]") {
  CHECK(softmax(full({}, 3.0, TensorOptions(DType::F32)), 0).tolist<float>() == Floats{1});
  CHECK(log_softmax(full({}, 3.0, TensorOptions(DType::F32)), 0).tolist<float>() == Floats{0});
  Tensor e = softmax(empty({0, 3}, TensorOptions(DType::F32)), 1);
  CHECK(sizes_of(e) == Sizes{0, 3});
}
