// The cpu plugin's nn kernels (softmax, log_softmax, layer_norm, max_pool2d,
// embedding) on small hand-checked cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "plexus/factories.h"
#include "plexus/ops.h"
#include "support/error_of.h"

using namespace plexus;
using Catch::Matchers::Contains;
using plexus::testing::error_of;
using Sizes = std::vector<int64_t>;
using Floats = std::vector<float>;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}

// Checks every value of got is within `eps` (relative) or `margin` of want.
void check_close(const Floats& got, const Floats& want, double eps = 1e-6, double margin = 1e-7) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    if (std::isinf(want[i]))
      CHECK(got[i] == want[i]);
    else
      CHECK(got[i] == Approx(want[i]).epsilon(eps).margin(margin));
  }
}

// A float32 tensor of the given sizes holding offset + scale * i at position i.
Tensor iota(Sizes sizes, float scale = 1, float offset = 0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor t = empty(sizes, TensorOptions(DType::F32));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = offset + scale * static_cast<float>(i);
  return t;
}

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

TEST_CASE("softmax and log_softmax of a row", "[nn]") {
  Tensor x = tensor<float>({1, 2, 3}, {3});
  check_close(softmax(x, 0).tolist<float>(), {0.09003057f, 0.24472847f, 0.66524096f});
  check_close(log_softmax(x, -1).tolist<float>(), {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST_CASE("softmax is stable for large inputs and exact for -inf", "[nn]") {
  Tensor x = tensor<float>({1000, 1001, -kInf}, {3});
  check_close(softmax(x, 0).tolist<float>(), {0.26894142f, 0.73105858f, 0});
  check_close(log_softmax(x, 0).tolist<float>(), {-1.31326169f, -0.31326169f, -kInf});
  Tensor far = tensor<float>({0, -200}, {2});
  CHECK(softmax(far, 0).tolist<float>() == Floats{1, 0});
}

TEST_CASE("softmax of a row with NaN is NaN", "[nn]") {
  Tensor x = tensor<float>({1, kNaN, 3, 4, 5, 6}, {2, 3});
  Floats y = softmax(x, 1).tolist<float>();
  for (int i = 0; i < 3; ++i) CHECK(std::isnan(y[i]));
  check_close({y[3], y[4], y[5]}, {0.09003057f, 0.24472847f, 0.66524096f});
  Floats ly = log_softmax(x, 1).tolist<float>();
  CHECK(std::isnan(ly[0]));
  CHECK(ly[5] == Approx(-0.40760596f));
}

TEST_CASE("softmax along a leading dim and of strided views", "[nn]") {
  Tensor x = tensor<float>({1, 2, 3, 4}, {2, 2});
  check_close(softmax(x, 0).tolist<float>(), {0.11920292f, 0.11920292f, 0.88079708f, 0.88079708f});
  check_close(softmax(x.t(), 1).tolist<float>(),
              {0.11920292f, 0.88079708f, 0.11920292f, 0.88079708f});
  Tensor t = iota({2, 3, 2});  // along the middle dim: rows of stride 2
  Floats row = softmax_ref({0, 2, 4}, false);
  check_close(softmax(t, 1).tolist<float>(), {row[0], row[0], row[1], row[1], row[2], row[2],
                                              row[0], row[0], row[1], row[1], row[2], row[2]});
}

TEST_CASE("softmax along a leading dim of wide rows matches a double reference", "[nn]") {
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

TEST_CASE("softmax into a strided out", "[nn]") {
  Tensor out = zeros({3, 2});
  softmax_out(out.select(1, 1), tensor<float>({1, 2, 3}, {3}), 0);
  check_close(out.tolist<float>(), {0, 0.09003057f, 0, 0.24472847f, 0, 0.66524096f});
}

TEST_CASE("softmax rows of every length match a double reference", "[nn]") {
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

TEST_CASE("softmax in float16, bfloat16, float64 and with dtype", "[nn]") {
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

TEST_CASE("softmax of 0-d and empty tensors", "[nn]") {
  CHECK(softmax(full({}, 3.0, TensorOptions(DType::F32)), 0).tolist<float>() == Floats{1});
  CHECK(log_softmax(full({}, 3.0, TensorOptions(DType::F32)), 0).tolist<float>() == Floats{0});
  Tensor e = softmax(empty({0, 3}, TensorOptions(DType::F32)), 1);
  CHECK(sizes_of(e) == Sizes{0, 3});
}

TEST_CASE("layer_norm against hand-computed values", "[nn]") {
  // mean 2.5, biased variance 1.25
  Tensor x = tensor<float>({1, 2, 3, 4}, {1, 4});
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  check_close(layer_norm(x, Sizes{4}).tolist<float>(), {-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r});
  Tensor w = tensor<float>({1, 2, 3, 4}, {4}), b = tensor<float>({0.5, 0, 0, -1}, {4});
  check_close(layer_norm(x, Sizes{4}, w, b).tolist<float>(),
              {-1.5f * r + 0.5f, -1.0f * r, 1.5f * r, 6.0f * r - 1});
  float r0 = 1.0f / std::sqrt(1.25f);
  check_close(layer_norm(x, Sizes{4}, {}, {}, 0.0).tolist<float>(),
              {-1.5f * r0, -0.5f * r0, 0.5f * r0, 1.5f * r0});
}

TEST_CASE("layer_norm over two dims, rows and strided views", "[nn]") {
  // Rows [0, 1, 2, 3] and [4, 5, 6, 7]: each has variance 1.25 about its mean.
  Tensor x = iota({2, 2, 2});
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  Floats want{-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r, -1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r};
  check_close(layer_norm(x, Sizes{2, 2}).tolist<float>(), want);
  // The transpose of [[0, 1, 2, 3], [4, 5, 6, 7]] normalized over its rows of 2.
  Tensor t = iota({2, 4}).t();  // [[0, 4], [1, 5], [2, 6], [3, 7]]
  float r2 = 1.0f / std::sqrt(4.0f + 1e-5f);
  check_close(layer_norm(t, Sizes{2}).tolist<float>(),
              {-2 * r2, 2 * r2, -2 * r2, 2 * r2, -2 * r2, 2 * r2, -2 * r2, 2 * r2});
  Tensor w = tensor<float>({1, 0, 2, 0, 3, 0}, {3, 2}).select(1, 0);  // [1, 2, 3], stride 2
  Tensor y = layer_norm(tensor<float>({1, 2, 3}, {3}), Sizes{3}, w);
  float r3 = 1.0f / std::sqrt(2.0f / 3 + 1e-5f);
  check_close(y.tolist<float>(), {-r3, 0, 3 * r3});
}

TEST_CASE("layer_norm of a constant row gives the bias", "[nn]") {
  Tensor x = full({2, 3}, 7.0, TensorOptions(DType::F32));
  Tensor b = tensor<float>({1, 2, 3}, {3});
  CHECK(layer_norm(x, Sizes{3}, {}, b).tolist<float>() == Floats{1, 2, 3, 1, 2, 3});
}

TEST_CASE("layer_norm in float16, bfloat16 and float64", "[nn]") {
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  Floats want{-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r};
  Tensor x = tensor<float>({1, 2, 3, 4}, {4});
  Tensor h = layer_norm(x.to(DType::F16), Sizes{4});
  CHECK(h.dtype() == DType::F16);
  check_close(h.tolist<float>(), want, 1e-3);
  check_close(layer_norm(x.to(DType::BF16), Sizes{4}).tolist<float>(), want, 1e-2);
  Tensor d = layer_norm(x.to(DType::F64), Sizes{4});
  CHECK(d.tolist<double>()[3] == Approx(1.5 / std::sqrt(1.25 + 1e-5)).epsilon(1e-12));
}

TEST_CASE("max_pool2d windows, strides and batches", "[nn]") {
  Tensor x = iota({1, 1, 4, 4});
  Tensor y = max_pool2d(x, {2, 2});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{5, 7, 13, 15});
  CHECK(max_pool2d(x, {2, 2}, {1, 1}).tolist<float>() == Floats{5, 6, 7, 9, 10, 11, 13, 14, 15});
  CHECK(max_pool2d(x, {1, 2}, {1, 2}).tolist<float>() == Floats{1, 3, 5, 7, 9, 11, 13, 15});
  Tensor b = iota({2, 3, 2, 2});  // one window per plane: its last element
  CHECK(max_pool2d(b, {2, 2}).tolist<float>() == Floats{3, 7, 11, 15, 19, 23});
}

TEST_CASE("max_pool2d pads with -inf", "[nn]") {
  Tensor x = iota({1, 1, 4, 4}, -1, -1);  // -1 .. -16: a zero pad would win every window
  Tensor y = max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{-1, -2, -5, -6});
}

TEST_CASE("max_pool2d with ceil_mode clips the last windows", "[nn]") {
  Tensor x = iota({1, 1, 5, 5});
  Tensor y = max_pool2d(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true);
  CHECK(sizes_of(y) == Sizes{1, 1, 3, 3});
  CHECK(y.tolist<float>() == Floats{6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(sizes_of(max_pool2d(x, {2, 2}, {2, 2})) == Sizes{1, 1, 2, 2});
}

TEST_CASE("max_pool2d with dilation", "[nn]") {
  Tensor x = iota({1, 1, 4, 4});
  Tensor y = max_pool2d(x, {2, 2}, {1, 1}, {0, 0}, {2, 2});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{10, 11, 14, 15});
  Tensor p = max_pool2d(iota({1, 1, 4, 4}, -1), {2, 2}, {1, 1}, {1, 1}, {2, 2});  // padded
  CHECK(sizes_of(p) == Sizes{1, 1, 4, 4});
  CHECK(p.tolist<float>() ==
        Floats{-5, -4, -5, -6, -1, -0.0f, -1, -2, -5, -4, -5, -6, -9, -8, -9, -10});
}

TEST_CASE("max_pool2d matches a direct loop over many window shapes", "[nn]") {
  const int64_t H = 7, W = 9;
  Tensor x = empty({2, 2, H, W}, TensorOptions(DType::F32));
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = std::sin(1.7f * static_cast<float>(i)) * 10 - 20;  // all below 0
  for (int64_t k : {1, 2, 3})
    for (int64_t s : {1, 2, 3})
      for (int64_t pad = 0; pad <= k / 2; ++pad)
        for (int64_t d : {1, 2})
          for (bool ceil : {false, true}) {
            INFO("k " << k << " s " << s << " p " << pad << " d " << d << " ceil " << ceil);
            Tensor y = max_pool2d(x, {k, k}, {s, s}, {pad, pad}, {d, d}, ceil);
            int64_t OH = y.size(2), OW = y.size(3);
            Floats got = y.tolist<float>(), want;
            for (int64_t plane = 0; plane < 4; ++plane)
              for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                  float m = -kInf;
                  for (int64_t i = 0; i < k; ++i)
                    for (int64_t j = 0; j < k; ++j) {
                      int64_t h = oh * s - pad + i * d, w = ow * s - pad + j * d;
                      if (h >= 0 && h < H && w >= 0 && w < W)
                        m = std::max(m, x.data<float>()[plane * H * W + h * W + w]);
                    }
                  want.push_back(m);
                }
            CHECK(got == want);
          }
}

TEST_CASE("max_pool2d propagates NaN, reads strided input, float16", "[nn]") {
  Tensor x = iota({1, 1, 2, 4});
  x.data<float>()[1] = kNaN;
  Floats y = max_pool2d(x, {2, 2}).tolist<float>();
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 7);
  // Channels last: [N, H, W, C] memory viewed as [N, C, H, W].
  Tensor nhwc = iota({1, 2, 2, 2});  // channel c at x[..., c]
  Tensor nchw = nhwc.permute({0, 3, 1, 2});
  CHECK(max_pool2d(nchw, {2, 2}).tolist<float>() == Floats{6, 7});
  Tensor h = max_pool2d(iota({1, 1, 4, 4}).to(DType::F16), {2, 2});
  CHECK(h.dtype() == DType::F16);
  CHECK(h.tolist<float>() == Floats{5, 7, 13, 15});
}

TEST_CASE("embedding picks rows", "[nn]") {
  Tensor w = iota({4, 3});
  Tensor idx = tensor<int64_t>({1, 3, 0, 1}, {2, 2});
  Tensor y = embedding(w, idx);
  CHECK(sizes_of(y) == Sizes{2, 2, 3});
  CHECK(y.tolist<float>() == Floats{3, 4, 5, 9, 10, 11, 0, 1, 2, 3, 4, 5});
  Tensor i32 = tensor<int32_t>({2}, {1});
  CHECK(embedding(w, i32).tolist<float>() == Floats{6, 7, 8});
  CHECK(embedding(w, i32, 2).tolist<float>() == Floats{6, 7, 8});  // padding_idx: gradients only
}

TEST_CASE("embedding of strided weights and indices, other dtypes", "[nn]") {
  Tensor w = iota({3, 4}).t();  // [4, 3]: row i is [i, 4 + i, 8 + i]
  Tensor idx = tensor<int64_t>({2, 9, 0, 9}, {4}).slice(0, 0, 4, 2);  // [2, 0]
  CHECK(embedding(w, idx).tolist<float>() == Floats{2, 6, 10, 0, 4, 8});
  Tensor wi = tensor<int16_t>({1, 2, 3, 4}, {2, 2});
  CHECK(embedding(wi, tensor<int64_t>({1, 1}, {2})).tolist<int16_t>() ==
        std::vector<int16_t>{3, 4, 3, 4});
  Tensor wb = tensor<bool>({true, false, false, true}, {2, 2});
  CHECK(embedding(wb, tensor<int32_t>({1}, {1})).tolist<bool>() == std::vector<bool>{false, true});
  Tensor wh = iota({2, 2}).to(DType::F16);
  CHECK(embedding(wh, tensor<int64_t>({1}, {1})).tolist<float>() == Floats{2, 3});
  Tensor none = embedding(w, empty({0}, TensorOptions(DType::I64)));
  CHECK(sizes_of(none) == Sizes{0, 3});
  Tensor scalar_index = embedding(w, full({}, 3, TensorOptions(DType::I64)));
  CHECK(scalar_index.tolist<float>() == Floats{3, 7, 11});
}

TEST_CASE("embedding rejects indices out of range, naming the first", "[nn]") {
  Tensor w = iota({4, 3});
  Error e = error_of([&] { embedding(w, tensor<int64_t>({0, 1, 4, 7}, {2, 2})); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK_THAT(e.what(), Contains("indices[1, 0] = 4") && Contains("4 rows"));
  Error neg = error_of([&] { embedding(w, tensor<int32_t>({-1}, {1})); });
  CHECK(neg.code() == ErrorCode::InvalidArgument);
  CHECK_THAT(neg.what(), Contains("indices[0] = -1"));
}
