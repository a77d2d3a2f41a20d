// copy_ and fill_ on the cpu plugin: every layout path (dense, permuted in
// cache blocks, strided, broadcast) and the host's conversion rules.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plexus/ops.h"

using namespace plexus;

namespace {

// rows x cols values 0, 1, 2, ... in row-major order.
Tensor iota(int64_t rows, int64_t cols, DType dtype = DType::F32) {
  return arange(0, rows * cols, 1, TensorOptions(dtype)).view({rows, cols});
}

// The transpose of a rows x cols matrix given as a row-major list.
std::vector<double> transposed(const std::vector<double>& v, int64_t rows, int64_t cols) {
  std::vector<double> t;
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) t.push_back(v[i * cols + j]);
  return t;
}

// Checks that copying the transpose of a matrix gives its values transposed.
void check_transpose(const Tensor& src) {
  INFO(src.str());
  int64_t rows = src.size(0), cols = src.size(1);
  Tensor dst = empty({cols, rows}, src.dtype());
  dst.copy_(src.t());
  CHECK(dst.tolist<double>() == transposed(src.tolist<double>(), rows, cols));
}

}  // namespace

TEST_CASE("copy_ of a dense tensor of the same dtype copies every element", "[copy]") {
  Tensor src = arange(0, 400000, 1, TensorOptions(DType::F32));  // several parallel blocks
  Tensor dst = empty({400000}, DType::F32);
  dst.copy_(src);
  std::vector<float> v = dst.tolist<float>();
  CHECK(v[0] == 0);
  CHECK(v[4097] == 4097);
  CHECK(v[399999] == 399999);
  bool all = true;
  for (size_t i = 0; i < v.size(); ++i) all = all && v[i] == static_cast<float>(i);
  CHECK(all);
}

TEST_CASE("copy_ of a transposed view goes through blocks and lands transposed", "[copy]") {
  // Sizes cover full and partial tiles (64-byte rows: 8 to 64 elements),
  // several 256 x 256 blocks, and outputs over 8 MB, written around the caches.
  SECTION("4-byte elements: the AVX2 8x8 transposes and their edges") {
    check_transpose(iota(37, 23));
    check_transpose(iota(300, 270, DType::I32));
    check_transpose(iota(1032, 2049));  // 8.5 MB; rows a multiple of 32 bytes
  }
  SECTION("8-byte elements") {
    check_transpose(iota(19, 11, DType::F64));
    check_transpose(iota(300, 270, DType::I64));
    check_transpose(iota(1032, 1032, DType::F64));
  }
  SECTION("2-byte elements") {
    check_transpose(iota(19, 11, DType::BF16));
    check_transpose(iota(150, 200, DType::I16));
    check_transpose(iota(2048, 2064, DType::F16));
  }
  SECTION("1-byte elements") {
    check_transpose(iota(19, 11, DType::U8));
    check_transpose(iota(100, 70, DType::I8));
  }
  SECTION("while converting dtype") {
    Tensor dst = empty({23, 37}, DType::I32);
    dst.copy_(iota(37, 23, DType::F64).t());
    CHECK(dst.tolist<double>() == transposed(iota(37, 23).tolist<double>(), 37, 23));
  }
  SECTION("into a transposed destination") {
    Tensor dst = empty({23, 37}, DType::F32);
    dst.t().copy_(iota(37, 23));
    CHECK(dst.tolist<double>() == transposed(iota(37, 23).tolist<double>(), 37, 23));
  }
  SECTION("a batch of matrices, permuted") {
    Tensor src = arange(0, 2 * 9 * 10, 1, TensorOptions(DType::F32)).view({2, 9, 10});
    Tensor dst = src.permute({0, 2, 1}).contiguous();
    REQUIRE(dst.sizes() == IntArrayRef{2, 10, 9});
    std::vector<float> v = dst.tolist<float>();
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 10; ++i)
        for (int64_t j = 0; j < 9; ++j) CHECK(v[(b * 10 + i) * 9 + j] == b * 90 + j * 10 + i);
  }
  SECTION("a batch of matrices, permuted, several blocks each") {
    Tensor src = arange(0, 3 * 300 * 260, 1, TensorOptions(DType::F32)).view({3, 300, 260});
    std::vector<float> v = src.permute({0, 2, 1}).contiguous().tolist<float>();
    bool all = true;
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t i = 0; i < 260; ++i)
        for (int64_t j = 0; j < 300; ++j)
          all = all && v[(b * 260 + i) * 300 + j] == (b * 300 + j) * 260 + i;
    CHECK(all);
  }
}

TEST_CASE("copy_ of strided, offset and broadcast sources", "[copy]") {
  SECTION("a slice with a step and an offset") {
    Tensor src = arange(0, 20, 1, TensorOptions(DType::I32)).slice(0, 3, 15, 3);  // 3 6 9 12
    Tensor dst = zeros({4}, DType::I64);
    dst.copy_(src);
    CHECK(dst.tolist<int64_t>() == std::vector<int64_t>{3, 6, 9, 12});
  }
  SECTION("into a strided slice, leaving the rest untouched") {
    Tensor dst = zeros({2, 6}, DType::F32);
    dst.slice(1, 1, std::nullopt, 2).copy_(tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
    CHECK(dst.tolist<float>() == std::vector<float>{0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6});
  }
  SECTION("a row broadcast over rows") {
    Tensor dst = empty({2, 3}, DType::F64);
    dst.copy_(tensor<float>({1, 2, 3}));
    CHECK(dst.tolist<double>() == std::vector<double>{1, 2, 3, 1, 2, 3});
  }
  SECTION("a column broadcast over columns, large enough to block") {
    Tensor dst = empty({9, 10}, DType::F32);
    dst.copy_(arange(0, 9, 1, TensorOptions(DType::F32)).view({9, 1}));
    std::vector<float> v = dst.tolist<float>();
    for (int64_t i = 0; i < 9; ++i)
      for (int64_t j = 0; j < 10; ++j) CHECK(v[i * 10 + j] == i);
  }
  SECTION("one value broadcast everywhere") {
    Tensor dst = empty({5}, DType::I16);
    dst.copy_(scalar_tensor(7.9, DType::F64));
    CHECK(dst.tolist<int16_t>() == std::vector<int16_t>{7, 7, 7, 7, 7});
  }
}

TEST_CASE("copy_ converts floating to integer with truncation, NaN to 0 and saturation", "[copy]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor f = tensor<float>({3.7f, -3.7f, nan, 1e10f, -1e10f, inf, -inf});
  CHECK(f.to(DType::I32).tolist<int32_t>() ==
        std::vector<int32_t>{3, -3, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN});
  CHECK(f.to(DType::U8).tolist<uint8_t>() == std::vector<uint8_t>{3, 0, 0, 255, 0, 255, 0});
  CHECK(f.to(DType::I8).tolist<int8_t>() == std::vector<int8_t>{3, -3, 0, 127, -128, 127, -128});
  CHECK(tensor<double>({1e19, -1e19}).to(DType::I64).tolist<int64_t>() ==
        std::vector<int64_t>{INT64_MAX, INT64_MIN});
  CHECK(tensor<float>({300.5f, -2.5f}).to(DType::F16).to(DType::U8).tolist<uint8_t>() ==
        std::vector<uint8_t>{255, 0});
}

TEST_CASE("copy_ between integer types wraps, and to float16/bfloat16 rounds to nearest even",
          "[copy]") {
  CHECK(tensor<int32_t>({300, -1, 128}).to(DType::I8).tolist<int8_t>() ==
        std::vector<int8_t>{44, -1, -128});
  CHECK(tensor<int16_t>({-1}).to(DType::U8).tolist<uint8_t>() == std::vector<uint8_t>{255});
  // 1/3 in float16 is 0x3555 = 0.333251953125; 70000 overflows float16.
  std::vector<float> h = tensor<float>({1.0f / 3, 70000, -0.0f}).to(DType::F16).tolist<float>();
  CHECK(h[0] == 0.333251953125f);
  CHECK(std::isinf(h[1]));
  CHECK((h[2] == 0 && std::signbit(h[2])));
  // Integers reach bfloat16 through float32, as the host converts them:
  // 2^24 + 65537 rounds to 2^24 + 65536 in float32, a tie that bfloat16 breaks to 2^24.
  CHECK(tensor<int32_t>({16842753}).to(DType::BF16).tolist<float>() ==
        std::vector<float>{16777216});
  CHECK(tensor<double>({16842753}).to(DType::BF16).tolist<float>() == std::vector<float>{16908288});
}

TEST_CASE("copy_ to and from bool", "[copy]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(tensor<float>({0, -0.0f, 0.5f, nan, -2}).to(DType::Bool).tolist<bool>() ==
        std::vector<bool>{false, false, true, true, true});
  CHECK(tensor<bool>({true, false}).to(DType::F16).tolist<float>() == std::vector<float>{1, 0});
  SECTION("a bool byte other than 0 and 1 reads as true, and copies as 1") {
    uint8_t bytes[4] = {0, 1, 2, 255};
    Tensor b = from_blob(bytes, {4}, TensorOptions(DType::Bool));
    CHECK(b.to(DType::I32).tolist<int32_t>() == std::vector<int32_t>{0, 1, 1, 1});
    Tensor c = b.clone();
    const auto* p = static_cast<const uint8_t*>(c.data_ptr());
    CHECK(std::vector<uint8_t>(p, p + 4) == std::vector<uint8_t>{0, 1, 1, 1});
  }
}

TEST_CASE("copy_ of a tensor onto itself leaves it unchanged", "[copy]") {
  Tensor t = tensor<float>({1, 2, 3});
  t.copy_(t);
  CHECK(t.tolist<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("fill_ sets every element, through any layout", "[copy]") {
  SECTION("dense, converted to the tensor's dtype") {
    Tensor t = empty({3}, DType::F16);
    t.fill_(0.1);
    CHECK(t.tolist<float>() == std::vector<float>(3, static_cast<float>(Half(0.1))));
    Tensor b = empty({2}, DType::Bool);
    b.fill_(true);
    CHECK(b.tolist<bool>() == std::vector<bool>{true, true});
    Tensor i = empty({2}, DType::I64);
    i.fill_(int64_t{1} << 40);
    CHECK(i.tolist<int64_t>() == std::vector<int64_t>(2, int64_t{1} << 40));
  }
  SECTION("a transposed, strided view") {
    Tensor t = zeros({3, 4}, DType::I32);
    t.t().slice(0, 1, std::nullopt, 2).fill_(5);  // columns 1 and 3
    CHECK(t.tolist<int32_t>() == std::vector<int32_t>{0, 5, 0, 5, 0, 5, 0, 5, 0, 5, 0, 5});
  }
  SECTION("large enough to split across threads") {
    Tensor t = empty({1 << 17}, DType::F32);
    t.fill_(-1.5);
    CHECK(t.tolist<float>() == std::vector<float>(1 << 17, -1.5f));
  }
}
