// Binary arithmetic on the cpu plugin: add, sub, mul, div and its rounding
// modes, pow, maximum, minimum; PyTorch's results on hand-checked cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plexus/ops.h"
#include "support/error_of.h"

using namespace plexus;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

Tensor f32(std::initializer_list<float> v, IntArrayRef sizes) {
  return tensor<float>(v, sizes);
}
}  // namespace

TEST_CASE("add broadcasts, scales other by alpha and reads any layout", "[binary]") {
  Tensor a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(add(a, tensor<float>({10, 20, 30})).tolist<float>() ==
        std::vector<float>{11, 22, 33, 14, 25, 36});
  CHECK(add(f32({1, 2}, {2, 1}), f32({10, 20, 30}, {1, 3})).tolist<float>() ==
        std::vector<float>{11, 21, 31, 12, 22, 32});
  CHECK(add(a, a, 2).tolist<float>() == std::vector<float>{3, 6, 9, 12, 15, 18});
  CHECK(add(a, 0.5).tolist<float>() == std::vector<float>{1.5, 2.5, 3.5, 4.5, 5.5, 6.5});
  CHECK(add(wrapped_scalar(2), a.t(), -1).tolist<float>() ==
        std::vector<float>{1, -2, 0, -3, -1, -4});
  SECTION("transposed and offset operands") {
    Tensor b = f32({10, 20, 30, 40, 50, 60}, {3, 2});
    CHECK(add(a, b.t()).tolist<float>() == std::vector<float>{11, 32, 53, 24, 45, 66});
    Tensor tail = arange(0, 8, 1, TensorOptions(DType::F32)).slice(0, 5);  // 5 6 7
    CHECK(add(tail, tensor<float>({1, 1, 1})).tolist<float>() == std::vector<float>{6, 7, 8});
  }
  SECTION("in place, out = self") {
    Tensor c = a.clone();
    c.add_(tensor<float>({1, 1, 1}));
    CHECK(c.tolist<float>() == std::vector<float>{2, 3, 4, 5, 6, 7});
  }
  SECTION("large enough to split across threads") {
    Tensor x = arange(0, 1 << 17, 1, TensorOptions(DType::F32));
    std::vector<float> v = add(x, x).tolist<float>();
    bool all = true;
    for (size_t i = 0; i < v.size(); ++i) all = all && v[i] == 2.0f * static_cast<float>(i);
    CHECK(all);
  }
}

TEST_CASE("add and sub on integers wrap; on bool add is logical or", "[binary]") {
  CHECK(add(tensor<int8_t>({127, -128}), tensor<int8_t>({1, -1})).tolist<int8_t>() ==
        std::vector<int8_t>{-128, 127});
  CHECK(add(tensor<uint8_t>({255}), tensor<uint8_t>({1})).tolist<uint8_t>() ==
        std::vector<uint8_t>{0});
  CHECK(add(tensor<int32_t>({INT32_MAX}), tensor<int32_t>({1})).tolist<int32_t>() ==
        std::vector<int32_t>{INT32_MIN});
  CHECK(add(tensor<int64_t>({1, 2}), tensor<int64_t>({3, 4}), 10).tolist<int64_t>() ==
        std::vector<int64_t>{31, 42});
  CHECK(sub(tensor<int64_t>({INT64_MIN, 5}), tensor<int64_t>({1, 2}), 3).tolist<int64_t>() ==
        std::vector<int64_t>{INT64_MAX - 2, -1});
  CHECK(sub(tensor<uint8_t>({0}), tensor<uint8_t>({1})).tolist<uint8_t>() ==
        std::vector<uint8_t>{255});
  CHECK(add(tensor<bool>({true, true, false, false}), tensor<bool>({true, false, true, false}))
            .tolist<bool>() == std::vector<bool>{true, true, true, false});
  CHECK(sub(f32({1, 2}, {2}), f32({4, 8}, {2}), 0.5).tolist<float>() == std::vector<float>{-1, -2});
}

TEST_CASE("float16 and bfloat16 compute in float and round once on store", "[binary]") {
  // 2048 + 1 is not a float16; the tie rounds to even.
  CHECK(add(tensor<float>({2048, 2048}).to(DType::F16), tensor<float>({1, 3}).to(DType::F16))
            .tolist<float>() == std::vector<float>{2048, 2052});
  // 1 + 2^-8 is a tie in bfloat16, 1 + 3 * 2^-9 is not.
  CHECK(add(tensor<float>({1, 1}).to(DType::BF16),
            tensor<float>({0.00390625f, 0.005859375f}).to(DType::BF16))
            .tolist<float>() == std::vector<float>{1, 1.0078125f});
  CHECK(mul(tensor<float>({0.1f}).to(DType::F16), 10).tolist<float>() ==
        std::vector<float>{static_cast<float>(Half(static_cast<float>(Half(0.1f)) * 10))});
}

TEST_CASE("mul wraps integers and is logical and on bool", "[binary]") {
  CHECK(mul(tensor<int16_t>({300, -300}), tensor<int16_t>({300, 300})).tolist<int16_t>() ==
        std::vector<int16_t>{24464, -24464});
  CHECK(mul(tensor<int64_t>({int64_t{1} << 62}), 4).tolist<int64_t>() == std::vector<int64_t>{0});
  CHECK(mul(tensor<bool>({true, true, false}), tensor<bool>({true, false, false})).tolist<bool>() ==
        std::vector<bool>{true, false, false});
  CHECK(mul(f32({1.5, -2}, {2}), f32({2, 0}, {2})).tolist<float>() == std::vector<float>{3, -0.0f});
}

TEST_CASE("div divides truly: integers become float32, division by zero gives inf or NaN",
          "[binary]") {
  std::vector<float> q = div(f32({1, -1, 0, 3}, {4}), f32({0, 0, 0, 4}, {4})).tolist<float>();
  CHECK(q[0] == kInf);
  CHECK(q[1] == -kInf);
  CHECK(std::isnan(q[2]));
  CHECK(q[3] == 0.75f);
  Tensor r = div(tensor<int32_t>({7, -7}), tensor<int32_t>({2, 2}));
  CHECK(r.dtype() == DType::F32);
  CHECK(r.tolist<float>() == std::vector<float>{3.5, -3.5});
  CHECK(div(tensor<double>({1}), 3).tolist<double>() == std::vector<double>{1.0 / 3});
}

TEST_CASE("div with rounding_mode 'trunc' and 'floor' on negative operands", "[binary]") {
  Tensor a = tensor<int32_t>({7, -7, 7, -7, 6, -6});
  Tensor b = tensor<int32_t>({2, 2, -2, -2, 3, -3});
  CHECK(div(a, b, "trunc").tolist<int32_t>() == std::vector<int32_t>{3, -3, -3, 3, 2, 2});
  CHECK(div(a, b, "floor").tolist<int32_t>() == std::vector<int32_t>{3, -4, -4, 3, 2, 2});
  CHECK(div(tensor<int64_t>({-1, 1}), tensor<int64_t>({5, -5}), "floor").tolist<int64_t>() ==
        std::vector<int64_t>{-1, -1});
  CHECK(div(tensor<uint8_t>({200, 7}), tensor<uint8_t>({3, 8}), "floor").tolist<uint8_t>() ==
        std::vector<uint8_t>{66, 0});
  CHECK(div(tensor<int32_t>({INT32_MIN}), tensor<int32_t>({-1}), "floor").tolist<int32_t>() ==
        std::vector<int32_t>{INT32_MIN});
  CHECK(div(tensor<int8_t>({-128}), tensor<int8_t>({-1}), "trunc").tolist<int8_t>() ==
        std::vector<int8_t>{-128});

  Tensor x = f32({7.5, -7.5, 7.5, -7.5}, {4}), y = f32({2, 2, -2, -2}, {4});
  CHECK(div(x, y, "trunc").tolist<float>() == std::vector<float>{3, -3, -3, 3});
  CHECK(div(x, y, "floor").tolist<float>() == std::vector<float>{3, -4, -4, 3});
  // Python's 1 // 0.1 is 9: the floor of the exact quotient, not of the rounded 10.
  CHECK(div(tensor<double>({1}), tensor<double>({0.1}), "floor").tolist<double>() ==
        std::vector<double>{9});
  std::vector<float> z = div(f32({-0.0f, 1, 0}, {3}), f32({5, 0, 0}, {3}), "floor").tolist<float>();
  CHECK((z[0] == 0 && std::signbit(z[0])));
  CHECK(z[1] == kInf);
  CHECK(std::isnan(z[2]));
  CHECK(div(tensor<float>({-3.5}).to(DType::BF16), 2, "floor").tolist<float>() ==
        std::vector<float>{-2});
}

TEST_CASE("integer division by zero is an error, not a crash", "[binary]") {
  for (const char* mode : {"trunc", "floor"}) {
    Error e = testing::error_of([&] {
      div(tensor<int32_t>({1, 2}), tensor<int32_t>({1, 0}), std::string(mode));
    });
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("division by zero"));
  }
  Error e = testing::error_of([] { div(tensor<uint8_t>({1}), 0, "floor"); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
}

TEST_CASE("pow with a tensor or a scalar exponent", "[binary]") {
  std::vector<float> p =
      pow(f32({2, 4, -8, 0}, {4}), f32({3, 0.5, 1.0f / 3, -1}, {4})).tolist<float>();
  CHECK(p[0] == 8);
  CHECK(p[1] == 2);
  CHECK(std::isnan(p[2]));
  CHECK(p[3] == kInf);
  Tensor x = f32({4, -2, 0.25}, {3});
  CHECK(pow(x, 2).tolist<float>() == std::vector<float>{16, 4, 0.0625});
  CHECK(pow(x, 3).tolist<float>() == std::vector<float>{64, -8, 0.015625});
  std::vector<float> s = pow(x, 0.5).tolist<float>();
  CHECK(s[0] == 2);
  CHECK(std::isnan(s[1]));
  CHECK(s[2] == 0.5);
  CHECK(pow(x, -1).tolist<float>() == std::vector<float>{0.25, -0.5, 4});
  CHECK(pow(x, -2).tolist<float>() == std::vector<float>{0.0625, 0.25, 16});
  CHECK(pow(x, -0.5).tolist<float>()[0] == 0.5);
  CHECK(pow(f32({8}, {1}), 1.5).tolist<float>()[0] == Approx(22.627417));
  SECTION("integers, by repeated squaring, wrapping") {
    CHECK(pow(tensor<int32_t>({2, 3, -2, 0}), 3).tolist<int32_t>() ==
          std::vector<int32_t>{8, 27, -8, 0});
    CHECK(pow(tensor<int64_t>({5}), 0).tolist<int64_t>() == std::vector<int64_t>{1});
    CHECK(pow(tensor<int8_t>({2}), 7).tolist<int8_t>() == std::vector<int8_t>{-128});
    CHECK(pow(tensor<int32_t>({1, -1, -1, 2, 3}), tensor<int32_t>({-3, -3, -2, -1, 2}))
              .tolist<int32_t>() == std::vector<int32_t>{1, -1, 1, 0, 9});
  }
}

TEST_CASE("maximum and minimum propagate NaN; on bool they are or and and", "[binary]") {
  Tensor a = f32({1, kNaN, 3, -0.0f}, {4}), b = f32({2, 2, kNaN, 0}, {4});
  std::vector<float> mx = maximum(a, b).tolist<float>();
  CHECK(mx[0] == 2);
  CHECK(std::isnan(mx[1]));
  CHECK(std::isnan(mx[2]));
  std::vector<float> mn = minimum(a, b).tolist<float>();
  CHECK(mn[0] == 1);
  CHECK(std::isnan(mn[1]));
  CHECK(std::isnan(mn[2]));
  CHECK(maximum(tensor<int64_t>({-5, 7}), tensor<int64_t>({3, 2})).tolist<int64_t>() ==
        std::vector<int64_t>{3, 7});
  CHECK(minimum(tensor<uint8_t>({200, 7}), tensor<uint8_t>({3, 8})).tolist<uint8_t>() ==
        std::vector<uint8_t>{3, 7});
  CHECK(maximum(tensor<bool>({true, false}), tensor<bool>({false, false})).tolist<bool>() ==
        std::vector<bool>{true, false});
  CHECK(minimum(tensor<bool>({true, true}), tensor<bool>({false, true})).tolist<bool>() ==
        std::vector<bool>{false, true});
  CHECK(maximum(f32({1, 5}, {2, 1}), f32({2, 3, 4}, {3})).tolist<float>() ==
        std::vector<float>{2, 3, 4, 5, 5, 5});
  CHECK(minimum(tensor<float>({1, 5}).to(DType::F16), tensor<float>({3, 3}).to(DType::F16))
            .tolist<float>() == std::vector<float>{1, 3});
}
