// lerp, addcmul and addcdiv on the cpu plugin: one fused pass with PyTorch's
// formulas, broadcasting, reduced floats and wrapping integers.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plexus/ops.h"

using namespace plexus;

TEST_CASE("lerp from either end, by the weight", "[pointwise]") {
  Tensor start = tensor<float>({0, 10, -4}), end = tensor<float>({8, 20, 4});
  CHECK(lerp(start, end, 0.25).tolist<float>() == std::vector<float>{2, 12.5, -2});
  CHECK(lerp(start, end, 0.75).tolist<float>() == std::vector<float>{6, 17.5, 2});
  CHECK(lerp(start, end, 1).tolist<float>() == std::vector<float>{8, 20, 4});  // exact at 1
  CHECK(lerp(start, end, 0).tolist<float>() == std::vector<float>{0, 10, -4});
  CHECK(lerp(tensor<float>({1, 2}, {2, 1}), tensor<float>({3, 5}), 0.5).tolist<float>() ==
        std::vector<float>{2, 3, 2.5, 3.5});
  CHECK(lerp(tensor<float>({0}).to(DType::BF16), tensor<float>({1}).to(DType::BF16), 0.3)
            .tolist<float>() == std::vector<float>{static_cast<float>(BFloat16(0.3f))});
}

TEST_CASE("addcmul computes self + value * tensor1 * tensor2", "[pointwise]") {
  Tensor self = tensor<float>({1, 2, 3}, {3});
  CHECK(addcmul(self, tensor<float>({1, 2, 3}), tensor<float>({4, 5, 6}), 2).tolist<float>() ==
        std::vector<float>{9, 22, 39});
  CHECK(addcmul(self, tensor<float>({2}), tensor<float>({1, 2}, {2, 1})).tolist<float>() ==
        std::vector<float>{3, 4, 5, 5, 6, 7});
  CHECK(
      addcmul(tensor<int8_t>({100}), tensor<int8_t>({10}), tensor<int8_t>({10})).tolist<int8_t>() ==
      std::vector<int8_t>{-56});  // 200 wraps
  CHECK(addcmul(tensor<int64_t>({1, 2}), tensor<int64_t>({3, 4}), tensor<int64_t>({5, 6}), -1)
            .tolist<int64_t>() == std::vector<int64_t>{-14, -22});
  CHECK(addcmul(tensor<float>({1}).to(DType::F16), tensor<float>({0.5}).to(DType::F16),
                tensor<float>({3}).to(DType::F16), 2)
            .tolist<float>() == std::vector<float>{4});
}

TEST_CASE("addcdiv computes self + value * tensor1 / tensor2", "[pointwise]") {
  std::vector<float> r =
      addcdiv(tensor<float>({1, 1, 1}), tensor<float>({3, 1, 0}), tensor<float>({2, 0, 0}), 2)
          .tolist<float>();
  CHECK(r[0] == 4);
  CHECK(r[1] == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(r[2]));
  CHECK(addcdiv(tensor<double>({0}), tensor<int32_t>({1}), tensor<double>({3})).tolist<double>() ==
        std::vector<double>{1.0 / 3});
  Tensor m = tensor<float>({2, 4, 6, 8}, {2, 2});
  CHECK(addcdiv(m, m.t(), tensor<float>({2})).tolist<float>() == std::vector<float>{3, 7, 8, 12});
}
