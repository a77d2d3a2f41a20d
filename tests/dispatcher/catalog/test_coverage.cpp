// Coverage: which route each dtype of an op takes on a backend, in the order
// the dispatcher tries them (kernel, composite, cpu fallback).
#include <catch2/catch.hpp>

#include "plexus/coverage.h"
#include "support/test_backend.h"

using namespace plexus;
using plexus::testing::recording_kernel;
using plexus::testing::ScopedKernel;
using plexus::testing::testdev;

namespace {
DTypeSet without(DTypeSet all, DTypeSet some) {
  return DTypeSet::from_bits(all.bits() & ~some.bits());
}
}  // namespace

TEST_CASE("coverage splits an op's dtypes into native, fallback and missing") {
  const Operator& mul = Dispatcher::get().op("mul.out");
  REQUIRE(mul.composite() == nullptr);
  ScopedKernel dev_kernel("mul.out", testdev(), recording_kernel, {DType::F32});
  ScopedKernel cpu_kernel("mul.out", kCPU, recording_kernel, {DType::F32, DType::F64});

  Coverage c = coverage(mul, testdev());
  CHECK(c.native == DTypeSet{DType::F32});
  CHECK(c.fallback == DTypeSet{DType::F64});  // the cpu has it; testdev does not
  CHECK(c.composite.empty());
  CHECK(c.missing == without(mul.catalog_dtypes(), {DType::F32, DType::F64}));
  CHECK(c.route() == Route::Native);
  CHECK_FALSE(c.uniform());

  // The functional form runs through the same kernel op.
  Coverage f = coverage(Dispatcher::get().op("mul.Tensor"), testdev());
  CHECK(f.native == c.native);
  CHECK(f.missing == c.missing);
}

TEST_CASE("the cpu never falls back to itself: what it lacks is missing") {
  const Operator& mul = Dispatcher::get().op("mul.out");
  ScopedKernel cpu_kernel("mul.out", kCPU, recording_kernel, {DType::F64});
  Coverage c = coverage(mul, kCPU);
  CHECK(c.native == DTypeSet{DType::F64});
  CHECK(c.fallback.empty());
  CHECK(c.missing == without(mul.catalog_dtypes(), {DType::F64}));
}

TEST_CASE("an op with a composite is covered by it wherever it has no kernel") {
  const Operator& sub = Dispatcher::get().op("sub.out");
  REQUIRE(sub.composite() != nullptr);
  ScopedKernel dev_kernel("sub.out", testdev(), recording_kernel, {DType::F32});
  Coverage c = coverage(sub, testdev());
  CHECK(c.native == DTypeSet{DType::F32});
  CHECK(c.composite == without(sub.catalog_dtypes(), {DType::F32}));
  CHECK(c.fallback.empty());
  CHECK(c.missing.empty());
}

TEST_CASE("a backend with one kernel for every dtype is uniformly native") {
  const Operator& mul = Dispatcher::get().op("mul.out");
  ScopedKernel dev_kernel("mul.out", testdev(), recording_kernel, DTypeSet::all());
  Coverage c = coverage(mul, testdev());
  CHECK(c.uniform());
  CHECK(c.route() == Route::Native);
  CHECK(route_name(c.route()) == "native");
}
