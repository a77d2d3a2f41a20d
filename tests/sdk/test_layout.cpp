// plexus/sdk/layout.hpp: strided layouts collapsed to the fewest dims that
// visit the same elements in the same (row-major) order.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "plexus/sdk/layout.hpp"

namespace plexus::sdk {
namespace {

template <size_t N, int32_t M>
std::vector<int64_t> sizes_of(const CollapsedDims<N, M>& c) {
  return std::vector<int64_t>(c.sizes, c.sizes + c.ndim);
}
template <size_t N, int32_t M>
std::vector<int64_t> strides_of(const CollapsedDims<N, M>& c, size_t k) {
  return std::vector<int64_t>(c.strides[k], c.strides[k] + c.ndim);
}

TEST_CASE("collapse_dims: dense operands become one dim", "[sdk][layout]") {
  const int64_t sizes[] = {2, 3, 4}, dense[] = {12, 4, 1}, bcast[] = {0, 0, 0};
  CollapsedDims<2> c;
  REQUIRE(collapse_dims(3, sizes, {dense, bcast}, c));
  CHECK(sizes_of(c) == std::vector<int64_t>{24});
  CHECK(strides_of(c, 0) == std::vector<int64_t>{1});
  CHECK(strides_of(c, 1) == std::vector<int64_t>{0});
  CHECK(c.numel == 24);
}

TEST_CASE("collapse_dims: size-1 dims are dropped whatever their strides", "[sdk][layout]") {
  const int64_t sizes[] = {1, 5, 1, 2}, strides[] = {99, 2, 7, 1};
  CollapsedDims<1> c;
  REQUIRE(collapse_dims(4, sizes, {strides}, c));
  CHECK(sizes_of(c) == std::vector<int64_t>{10});
  CHECK(strides_of(c, 0) == std::vector<int64_t>{1});
}

TEST_CASE("collapse_dims: dims merge only where every operand allows", "[sdk][layout]") {
  // out dense 2x3x4; in transposed in its last two dims.
  const int64_t sizes[] = {2, 3, 4}, out[] = {12, 4, 1}, in[] = {12, 1, 3};
  CollapsedDims<2> c;
  REQUIRE(collapse_dims(3, sizes, {out, in}, c));
  CHECK(sizes_of(c) == std::vector<int64_t>{2, 3, 4});
  // A dim broadcast in one operand merges with its neighbour only if that is broadcast too.
  const int64_t a[] = {0, 0, 1}, b[] = {12, 4, 1};
  REQUIRE(collapse_dims(3, sizes, {a, b}, c));
  CHECK(sizes_of(c) == std::vector<int64_t>{6, 4});
  CHECK(strides_of(c, 0) == std::vector<int64_t>{0, 1});
  CHECK(strides_of(c, 1) == std::vector<int64_t>{4, 1});
}

TEST_CASE("collapse_dims: a 0-d or all-size-1 shape has no dims and one element", "[sdk][layout]") {
  const int64_t sizes[] = {1, 1}, strides[] = {5, 3};
  CollapsedDims<1> c;
  REQUIRE(collapse_dims(2, sizes, {strides}, c));
  CHECK(c.ndim == 0);
  CHECK(c.numel == 1);
  REQUIRE(collapse_dims(0, sizes, {strides}, c));
  CHECK(c.ndim == 0);
}

TEST_CASE("collapse_dims: an empty shape has numel 0", "[sdk][layout]") {
  const int64_t sizes[] = {3, 0, 2}, strides[] = {0, 2, 1};
  CollapsedDims<1> c;
  REQUIRE(collapse_dims(3, sizes, {strides}, c));
  CHECK(c.numel == 0);
}

TEST_CASE("collapse_dims: MaxDims bounds the dims that remain, not those given", "[sdk][layout]") {
  std::vector<int64_t> sizes(9, 2), dense(9), every_other(9);
  for (int d = 8, s = 1; d >= 0; --d, s *= 2) dense[size_t(d)] = s;
  for (int d = 8, s = 1; d >= 0; --d, s *= 4) every_other[size_t(d)] = s;
  CollapsedDims<1, 8> c;
  REQUIRE(collapse_dims(9, sizes.data(), {dense.data()}, c));  // 9 dense dims: one
  CHECK(c.ndim == 1);
  CHECK_FALSE(collapse_dims(9, sizes.data(), {every_other.data()}, c));  // 9 that stay 9
  CollapsedDims<1, 9> wide;
  CHECK(collapse_dims(9, sizes.data(), {every_other.data()}, wide));
  CHECK(wide.ndim == 9);
}

TEST_CASE("CollapsedDims::push appends inner dims and merges like collapse_dims", "[sdk][layout]") {
  CollapsedDims<2, 2> c;
  CHECK(c.push(4, {6, 0}));
  CHECK(c.push(1, {100, 100}));    // dropped
  CHECK(c.push(3, {2, 0}));        // 6 == 2 * 3 and 0 == 0 * 3: merged
  CHECK(c.push(2, {1, 1}));        // a new dim
  CHECK_FALSE(c.push(5, {7, 7}));  // a third would be past MaxDims
  CHECK(sizes_of(c) == std::vector<int64_t>{12, 2});
  CHECK(strides_of(c, 0) == std::vector<int64_t>{2, 1});
  CHECK(strides_of(c, 1) == std::vector<int64_t>{0, 1});
  CHECK(c.numel == 24);
}

}  // namespace
}  // namespace plexus::sdk
