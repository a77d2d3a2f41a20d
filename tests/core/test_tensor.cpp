// Tensors and views: metadata, shared storage, and the checks on bad views.
#include <catch2/catch.hpp>

#include "plexus/allocator.h"
#include "plexus/ops.h"
#include "support/test_backend.h"

using namespace plexus;

namespace {
std::vector<int64_t> v(IntArrayRef r) { return {r.begin(), r.end()}; }
Tensor iota(IntArrayRef sizes) { return arange(checked_numel(sizes), DType::F32).view(sizes); }
}  // namespace

TEST_CASE("empty tensors are contiguous with row-major strides") {
  Tensor t = empty({2, 3, 4});
  CHECK(v(t.sizes()) == std::vector<int64_t>{2, 3, 4});
  CHECK(v(t.strides()) == std::vector<int64_t>{12, 4, 1});
  CHECK(t.numel() == 24);
  CHECK(t.nbytes() == 96);
  CHECK(t.is_contiguous());
  CHECK(reinterpret_cast<uintptr_t>(t.data_ptr()) % kHostAlignment == 0);
  Tensor s = empty({});
  CHECK(s.dim() == 0);
  CHECK(s.numel() == 1);
  CHECK(empty({0, 5}).numel() == 0);
}

TEST_CASE("contiguous strides that overflow int64 are refused, even with no elements") {
  const int64_t big = int64_t{1} << 40;
  CHECK(contiguous_strides({big, big}) == Shape{big, 1});  // the last stride is never multiplied
  CHECK_THROWS_WITH(contiguous_strides({0, big, big, 4}),
                    Catch::Contains("strides of a contiguous layout overflow int64"));
  CHECK_THROWS_WITH(empty({0, big, big, 4}), Catch::Contains("overflow int64"));
  CHECK(v(empty({0, 3}).strides()) == std::vector<int64_t>{3, 1});
}

TEST_CASE("views share storage and get the right strides and offsets") {
  Tensor t = iota({2, 3, 4});
  SECTION("transpose and permute") {
    Tensor p = t.permute({2, 0, 1});
    CHECK(v(p.sizes()) == std::vector<int64_t>{4, 2, 3});
    CHECK(v(p.strides()) == std::vector<int64_t>{1, 12, 4});
    CHECK(p.storage() == t.storage());
    CHECK_FALSE(p.is_contiguous());
    Tensor tr = t.transpose(0, 2);
    CHECK(v(tr.strides()) == std::vector<int64_t>{1, 4, 12});
  }
  SECTION("slice with a step and select") {
    Tensor s = t.slice(2, 1, 4, 2);  // columns 1 and 3
    CHECK(v(s.sizes()) == std::vector<int64_t>{2, 3, 2});
    CHECK(v(s.strides()) == std::vector<int64_t>{12, 4, 2});
    CHECK(s.storage_offset() == 1);
    CHECK(s.contiguous().tolist<float>()[1] == 3.0f);
    Tensor r = t.select(1, 2);
    CHECK(v(r.sizes()) == std::vector<int64_t>{2, 4});
    CHECK(r.storage_offset() == 8);
    CHECK(t.select(0, -1).storage_offset() == 12);
  }
  SECTION("expand gives stride 0") {
    Tensor row = iota({1, 4});
    Tensor e = row.expand({3, 4});
    CHECK(v(e.strides()) == std::vector<int64_t>{0, 1});
    Tensor e2 = iota({4}).expand({2, -1});
    CHECK(v(e2.sizes()) == std::vector<int64_t>{2, 4});
    CHECK(e.contiguous().tolist<float>() ==
          std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
  }
  SECTION("view, reshape, squeeze, unsqueeze, flatten") {
    CHECK(v(t.view({6, -1}).sizes()) == std::vector<int64_t>{6, 4});
    CHECK(t.view({6, 4}).storage() == t.storage());
    Tensor tt = t.transpose(0, 1);
    REQUIRE_THROWS_WITH(tt.view({24}), Catch::Contains("use reshape()"));
    Tensor r = tt.reshape({24});
    CHECK(r.storage() != t.storage());
    CHECK(r.tolist<float>()[4] == 12.0f);  // element [0][1][0] of tt is t[1][0][0]
    CHECK(v(t.unsqueeze(1).sizes()) == std::vector<int64_t>{2, 1, 3, 4});
    CHECK(v(t.unsqueeze(-1).strides()) == std::vector<int64_t>{12, 4, 1, 1});
    CHECK(v(iota({1, 3, 1}).squeeze().sizes()) == std::vector<int64_t>{3});
    CHECK(v(iota({1, 3, 1}).squeeze(0).sizes()) == std::vector<int64_t>{3, 1});
    CHECK(v(t.flatten(1).sizes()) == std::vector<int64_t>{2, 12});
  }
  SECTION("as_strided and narrow") {
    Tensor a = t.as_strided({2, 2}, {1, 4}, 1);
    CHECK(a.contiguous().tolist<float>() == std::vector<float>{1, 5, 2, 6});
    CHECK(t.narrow(1, 1, 2).storage_offset() == 4);
  }
  SECTION("writes through a view reach the base") {
    t.select(0, 1).select(0, 2).fill_(-1);
    CHECK(t.tolist<float>()[20] == -1.0f);
    CHECK(t.tolist<float>()[19] == 19.0f);
  }
}

TEST_CASE("bad views are refused with a message naming what is wrong") {
  Tensor t = iota({2, 3});
  REQUIRE_THROWS_WITH(t.view({4, -1}), Catch::Contains("invalid for 6 elements"));
  REQUIRE_THROWS_WITH(t.view({-1, -1}), Catch::Contains("more than one -1"));
  REQUIRE_THROWS_WITH(t.permute({0, 0}), Catch::Contains("appears twice"));
  REQUIRE_THROWS_WITH(t.transpose(0, 2), Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(t.select(1, 3), Catch::Contains("out of range for dim 1 of size 3"));
  REQUIRE_THROWS_WITH(t.expand({3, 3}), Catch::Contains("cannot expand"));
  REQUIRE_THROWS_WITH(t.slice(0, 0, 1, 0), Catch::Contains("step must be positive"));
  REQUIRE_THROWS_WITH(t.as_strided({3, 3}, {3, 1}, 0), Catch::Contains("needs 36 bytes, but the storage has 24"));
  REQUIRE_THROWS_WITH(t.as_strided({2}, {-1}, 1), Catch::Contains("negative strides"));
  REQUIRE_THROWS_WITH(empty({2, -3}), Catch::Contains("non-negative"));
  REQUIRE_THROWS_WITH(empty({int64_t{1} << 40, int64_t{1} << 40}), Catch::Contains("overflow"));
  REQUIRE_THROWS_WITH(Tensor().item(), Catch::Contains("undefined"));
  REQUIRE_THROWS_WITH(t.data<double>(), Catch::Contains("holds float32, not float64"));
}

TEST_CASE("copies convert dtypes, follow strides and cross devices") {
  Tensor t = iota({2, 3});
  Tensor i = t.t().to(DType::I16);
  CHECK(i.dtype() == DType::I16);
  CHECK(i.tolist<int16_t>() == std::vector<int16_t>{0, 3, 1, 4, 2, 5});
  Tensor h = full({3}, 1.0 / 3.0, DType::F16);
  CHECK(h.tolist<float>()[0] == Approx(0.333251953125));
  CHECK(full({2}, 300, DType::U8).tolist<uint8_t>()[0] == 44);  // wraps like C++ for in-range ints
  CHECK(full({1}, -2.5, DType::F32).to(DType::I32).item<int>() == -2);

  Device dev(plexus::testing::testdev(), 1);
  Tensor d = t.to(dev);
  CHECK(d.device() == dev);
  CHECK(d.to(Device()).tolist<float>() == t.tolist<float>());
  Tensor dt = d.t().contiguous().to(Device());
  CHECK(dt.tolist<float>() == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("item() returns a float64 value exactly, and other floats through float") {
  Tensor d = empty({}, TensorOptions(DType::F64));
  *d.data<double>() = 0.1;
  CHECK(d.item<double>() == 0.1);  // not 0.10000000149011612, float32's 0.1
  CHECK(d.item().to_double() == 0.1);
  Tensor f = empty({1}, TensorOptions(DType::F32));
  *f.data<float>() = 0.1f;
  CHECK(f.item<double>() == static_cast<double>(0.1f));
}
