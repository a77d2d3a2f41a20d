// The cpu plugin's embedding kernel on small hand-checked cases.
#include <catch2/catch.hpp>
#include <vector>

#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plugins/cpu/float_tensors.h"
#include "support/error_of.h"

using namespace plexus;
using Catch::Matchers::Contains;
using plexus::testing::error_of;
using plexus::testing::Floats;
using plexus::testing::iota;
using plexus::testing::Sizes;
using plexus::testing::sizes_of;

TEST_CASE("embedding picks rows", "[embedding]") {
  Tensor w = iota({4, 3});
  Tensor idx = tensor<int64_t>({1, 3, 0, 1}, {2, 2});
  Tensor y = embedding(w, idx);
  CHECK(sizes_of(y) == Sizes{2, 2, 3});
  CHECK(y.tolist<float>() == Floats{3, 4, 5, 9, 10, 11, 0, 1, 2, 3, 4, 5});
  Tensor i32 = tensor<int32_t>({2}, {1});
  CHECK(embedding(w, i32).tolist<float>() == Floats{6, 7, 8});
  CHECK(embedding(w, i32, 2).tolist<float>() == Floats{6, 7, 8});  // padding_idx: gradients only
}

TEST_CASE("embedding of strided weights and indices, other dtypes", "[embedding]") {
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

TEST_CASE("embedding rejects indices out of range, naming the first", "[embedding]") {
  Tensor w = iota({4, 3});
  Error e = error_of([&] { embedding(w, tensor<int64_t>({0, 1, 4, 7}, {2, 2})); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK_THAT(e.what(), Contains("indices[1, 0] = 4") && Contains("4 rows"));
  Error neg = error_of([&] { embedding(w, tensor<int32_t>({-1}, {1})); });
  CHECK(neg.code() == ErrorCode::InvalidArgument);
  CHECK_THAT(neg.what(), Contains("indices[0] = -1"));
}
