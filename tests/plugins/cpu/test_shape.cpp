// The cpu plugin's cat on small hand-checked cases.
#include <catch2/catch.hpp>

#include "plexus/factories.h"
#include "plexus/ops.h"

using namespace plexus;
using Sizes = std::vector<int64_t>;
using Floats = std::vector<float>;

namespace {

Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}

// A float32 tensor of the given sizes holding offset + i at position i.
Tensor iota(Sizes sizes, float offset = 0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor t = empty(sizes, TensorOptions(DType::F32));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = offset + static_cast<float>(i);
  return t;
}

}  // namespace

TEST_CASE("cat along the first and the last dim", "[shape]") {
  Tensor a = tensor<float>({1, 2, 3, 4}, {2, 2}), b = tensor<float>({5, 6}, {1, 2});
  Tensor rows = cat({a, b}, 0);
  CHECK(sizes_of(rows) == Sizes{3, 2});
  CHECK(rows.tolist<float>() == Floats{1, 2, 3, 4, 5, 6});
  Tensor c = tensor<float>({7, 8}, {2, 1});
  Tensor cols = cat({a, c, a}, -1);
  CHECK(sizes_of(cols) == Sizes{2, 5});
  CHECK(cols.tolist<float>() == Floats{1, 2, 7, 1, 2, 3, 4, 8, 3, 4});
}

TEST_CASE("cat along a middle dim of 3-D tensors", "[shape]") {
  Tensor a = iota({2, 1, 2}), b = iota({2, 2, 2}, 10);
  Tensor y = cat({a, b}, 1);
  CHECK(sizes_of(y) == Sizes{2, 3, 2});
  CHECK(y.tolist<float>() == Floats{0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17});
}

TEST_CASE("cat of non-contiguous inputs", "[shape]") {
  Tensor t = iota({2, 3}).t();  // [[0, 3], [1, 4], [2, 5]]
  Tensor a = tensor<float>({9, 9}, {1, 2});
  CHECK(cat({t, a}, 0).tolist<float>() == Floats{0, 3, 1, 4, 2, 5, 9, 9});
  Tensor every_other = iota({2, 4}).slice(1, 0, 4, 2);  // [[0, 2], [4, 6]]
  CHECK(cat({every_other, t.slice(0, 0, 2)}, 1).tolist<float>() == Floats{0, 2, 0, 3, 4, 6, 1, 4});
  Tensor expanded = tensor<float>({5, 6}, {1, 2}).expand({3, 2});  // stride 0 rows
  CHECK(cat({expanded, t}, 1).tolist<float>() == Floats{5, 6, 0, 3, 5, 6, 1, 4, 5, 6, 2, 5});
}

TEST_CASE("cat into a strided out", "[shape]") {
  Tensor out = zeros({2, 4});
  Tensor every_other = out.slice(1, 0, 4, 2);  // columns 0 and 2
  cat_out(every_other, {tensor<float>({1, 2}, {2, 1}), tensor<float>({3, 4}, {2, 1})}, 1);
  CHECK(out.tolist<float>() == Floats{1, 0, 3, 0, 2, 0, 4, 0});
}

TEST_CASE("cat skips legacy empty tensors and joins empty slices", "[shape]") {
  Tensor a = tensor<float>({1, 2}, {1, 2});
  Tensor legacy = empty({0}, TensorOptions(DType::F32));
  Tensor y = cat({legacy, a, legacy, a}, 0);
  CHECK(sizes_of(y) == Sizes{2, 2});
  CHECK(y.tolist<float>() == Floats{1, 2, 1, 2});
  Tensor none = empty({0, 2}, TensorOptions(DType::F32));
  CHECK(cat({none, a, none}, 0).tolist<float>() == Floats{1, 2});
  CHECK(sizes_of(cat({none, none}, 1)) == Sizes{0, 4});
  CHECK(sizes_of(cat({legacy, legacy}, 0)) == Sizes{0});
}

TEST_CASE("cat promotes mixed dtypes and keeps every dtype's values", "[shape]") {
  Tensor i = tensor<int32_t>({1, 2}, {2}), f = tensor<float>({0.5}, {1});
  Tensor y = cat({i, f}, 0);
  CHECK(y.dtype() == DType::F32);
  CHECK(y.tolist<float>() == Floats{1, 2, 0.5});
  Tensor b = cat({tensor<bool>({true}, {1}), tensor<bool>({false, true}, {2})}, 0);
  CHECK(b.dtype() == DType::Bool);
  CHECK(b.tolist<bool>() == std::vector<bool>{true, false, true});
  Tensor l = cat({tensor<int64_t>({int64_t{1} << 40}, {1}), tensor<int64_t>({-1}, {1})}, 0);
  CHECK(l.tolist<int64_t>() == std::vector<int64_t>{int64_t{1} << 40, -1});
  Tensor h = cat({iota({1, 2}).to(DType::F16), iota({1, 2}, 2).to(DType::F16)}, 1);
  CHECK(h.dtype() == DType::F16);
  CHECK(h.tolist<float>() == Floats{0, 1, 2, 3});
}

TEST_CASE("cat of large tensors (parallel copies)", "[shape]") {
  Tensor a = iota({1000, 300}), b = iota({1000, 200}, -1e6f);
  Tensor y = cat({a, b}, 1);
  CHECK(sizes_of(y) == Sizes{1000, 500});
  const float* p = y.data<float>();
  CHECK(p[0] == 0);
  CHECK(p[299] == 299);
  CHECK(p[300] == -1e6f);
  CHECK(p[999 * 500 + 299] == 999 * 300 + 299);
  CHECK(p[999 * 500 + 499] == -1e6f + 999 * 200 + 199);
  Tensor z = cat({a, a}, 0);
  CHECK(z.data<float>()[1000 * 300 + 12345] == 12345);
}
