// The caching allocator: reuse, statistics, and emptying the cache.
#include <catch2/catch.hpp>

#include "plexus/allocator.h"
#include "plexus/ops.h"
#include "support/test_backend.h"

using namespace plexus;

TEST_CASE("the caching allocator reuses freed blocks and counts what it does") {
  Device dev(testing::testdev(), 0);
  Allocator& a = allocator_for(dev);
  a.empty_cache();
  AllocatorStats s0 = a.stats();
  void* p = a.allocate(1000);
  AllocatorStats s1 = a.stats();
  CHECK(s1.allocations == s0.allocations + 1);
  CHECK(s1.device_allocations == s0.device_allocations + 1);
  CHECK(s1.allocated_bytes == s0.allocated_bytes + 1024);  // rounded to 64 bytes
  a.deallocate(p, 1000);
  AllocatorStats s2 = a.stats();
  CHECK(s2.allocated_bytes == s0.allocated_bytes);
  CHECK(s2.cached_bytes == s0.cached_bytes + 1024);
  CHECK(s2.reserved_bytes == s0.reserved_bytes + 1024);
  void* q = a.allocate(1010);  // same block size: served from the cache
  CHECK(q == p);
  AllocatorStats s3 = a.stats();
  CHECK(s3.cache_hits == s2.cache_hits + 1);
  CHECK(s3.device_allocations == s2.device_allocations);
  CHECK(s3.peak_allocated_bytes >= s3.allocated_bytes);
  a.deallocate(q, 1010);
  a.empty_cache();
  AllocatorStats s4 = a.stats();
  CHECK(s4.cached_bytes == 0);
  CHECK(s4.device_frees > s3.device_frees);
}

TEST_CASE("zero-byte allocations take no memory; oversized ones fail cleanly") {
  Allocator& a = allocator_for(Device(testing::testdev(), 0));
  CHECK(a.allocate(0) == nullptr);
  a.deallocate(nullptr, 0);
  REQUIRE_THROWS_AS(a.allocate(size_t{1} << 40), Error);
  try {
    a.allocate(size_t{1} << 40);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
  }
}

TEST_CASE("tensors allocate through their device's allocator") {
  Device dev(testing::testdev(), 1);
  Allocator& a = allocator_for(dev);
  size_t before = a.stats().allocated_bytes;
  {
    Tensor t = empty({256}, {DType::F32, dev});
    CHECK(a.stats().allocated_bytes == before + 1024);
  }
  CHECK(a.stats().allocated_bytes == before);
}

TEST_CASE("a device index that does not exist is refused") {
  REQUIRE_THROWS_WITH(allocator_for(Device(testing::testdev(), 7)),
                      Catch::Contains("does not exist") && Catch::Contains("2 device(s)"));
}

TEST_CASE("allocator options: a cache limit, and no caching for allocators made after") {
  AllocatorOptions saved = allocator_options();
  Device dev(testing::testdev(), 0);
  Allocator& a = allocator_for(dev);
  a.empty_cache();
  set_allocator_options({true, 4096});
  void* p = a.allocate(4096);
  void* q = a.allocate(4096);
  AllocatorStats before = a.stats();
  a.deallocate(p, 4096);  // fits under the limit: cached
  a.deallocate(q, 4096);  // would exceed it: back to the device
  AllocatorStats after = a.stats();
  CHECK(after.cached_bytes == 4096);
  CHECK(after.device_frees == before.device_frees + 1);
  CHECK(after.reserved_bytes == before.reserved_bytes - 4096);
  a.empty_cache();

  set_allocator_options({false, 0});
  release_allocators(testing::testdev());  // the next allocator_for makes a new one
  Allocator& direct = allocator_for(dev);
  void* r = direct.allocate(100);
  direct.deallocate(r, 100);
  CHECK(direct.stats().cached_bytes == 0);
  CHECK(direct.stats().device_frees == 1);
  set_allocator_options(saved);
  release_allocators(testing::testdev());
  CHECK(allocator_options().caching == saved.caching);
}
