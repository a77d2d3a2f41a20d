// Comparisons and where on the cpu plugin: bool results, NaN, promotion of
// mixed operands, broadcasting.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "plexus/ops.h"

using namespace plexus;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
using Bools = std::vector<bool>;
}  // namespace

TEST_CASE("the six comparisons of two tensors", "[compare]") {
  Tensor a = tensor<float>({1, 2, 3, kNaN}), b = tensor<float>({2, 2, 2, kNaN});
  CHECK(eq(a, b).dtype() == DType::Bool);
  CHECK(eq(a, b).tolist<bool>() == Bools{false, true, false, false});
  CHECK(ne(a, b).tolist<bool>() == Bools{true, false, true, true});
  CHECK(lt(a, b).tolist<bool>() == Bools{true, false, false, false});
  CHECK(le(a, b).tolist<bool>() == Bools{true, true, false, false});
  CHECK(gt(a, b).tolist<bool>() == Bools{false, false, true, false});
  CHECK(ge(a, b).tolist<bool>() == Bools{false, true, true, false});
}

TEST_CASE("comparisons broadcast, promote mixed dtypes and read any layout", "[compare]") {
  Tensor col = tensor<int32_t>({1, 2}, {2, 1}), row = tensor<int64_t>({1, 2, 3}, {1, 3});
  CHECK(lt(col, row).tolist<bool>() == Bools{false, true, true, false, false, true});
  CHECK(eq(tensor<int32_t>({1, 2}), tensor<float>({1.5, 2})).tolist<bool>() == Bools{false, true});
  Tensor m = tensor<double>({1, 2, 3, 4}, {2, 2});
  CHECK(gt(m.t(), m).tolist<bool>() == Bools{false, true, false, false});
  CHECK(eq(tensor<bool>({true, false}), tensor<bool>({true, true})).tolist<bool>() ==
        Bools{true, false});
  CHECK(lt(tensor<bool>({false, true}), tensor<bool>({true, true})).tolist<bool>() ==
        Bools{true, false});
  CHECK(ge(tensor<float>({-0.0f, 1}).to(DType::F16), tensor<float>({0, 2}).to(DType::F16))
            .tolist<bool>() == Bools{true, false});
}

TEST_CASE("comparisons with a scalar", "[compare]") {
  Tensor i = tensor<int32_t>({1, 2, 3});
  CHECK(gt(i, 1.5).tolist<bool>() == Bools{false, true, true});  // compared as float
  CHECK(eq(i, 2).tolist<bool>() == Bools{false, true, false});
  CHECK(le(tensor<uint8_t>({0, 200}), 100).tolist<bool>() == Bools{true, false});
  CHECK(ne(tensor<float>({kNaN, 1}), kNaN).tolist<bool>() == Bools{true, true});
  CHECK(eq(tensor<bool>({true, false}), true).tolist<bool>() == Bools{true, false});
  // float16 compares with the scalar converted to float16, as PyTorch does.
  CHECK(eq(tensor<float>({1}).to(DType::F16), 1.0001).tolist<bool>() == Bools{true});
}

TEST_CASE("where picks self where the condition holds, other elsewhere", "[compare]") {
  Tensor c = tensor<bool>({true, false, true});
  CHECK(where(c, tensor<float>({1, 2, 3}), tensor<float>({-1, -2, -3})).tolist<float>() ==
        std::vector<float>{1, -2, 3});
  CHECK(where(c, tensor<int64_t>({1, 2, 3}), 0).tolist<int64_t>() == std::vector<int64_t>{1, 0, 3});
  CHECK(where(c, 7, tensor<int32_t>({1, 2, 3})).tolist<int32_t>() == std::vector<int32_t>{7, 2, 7});
  Tensor promoted = where(c, tensor<int32_t>({1, 2, 3}), 0.5);
  CHECK(promoted.dtype() == DType::F32);
  CHECK(promoted.tolist<float>() == std::vector<float>{1, 0.5, 3});
  SECTION("a column condition broadcast over rows") {
    Tensor cond = tensor<bool>({true, false}, {2, 1});
    Tensor x = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    CHECK(where(cond, x, x.neg()).tolist<float>() == std::vector<float>{1, 2, 3, -4, -5, -6});
  }
  SECTION("bool and float16 values") {
    CHECK(where(c, tensor<bool>({false, false, false}), tensor<bool>({true, true, true}))
              .tolist<bool>() == Bools{false, true, false});
    CHECK(where(c, tensor<float>({1.5, 2, 3}).to(DType::F16), 0.25).tolist<float>() ==
          std::vector<float>{1.5, 0.25, 3});
  }
}
