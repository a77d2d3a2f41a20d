// plexus/dlpack.h: export and import without copies, ownership, and the
// errors for what plexus cannot describe or read.
#include <catch2/catch.hpp>

#include "plexus/dlpack.h"
#include "plexus/error.h"
#include "plexus/factories.h"

using namespace plexus;
using Catch::Contains;

TEST_CASE("DLPack export describes the view and keeps its storage alive", "[dlpack]") {
  Tensor base = empty({4, 6}, TensorOptions(DType::I32));
  for (int i = 0; i < 24; ++i) base.data<int32_t>()[i] = i;
  Tensor view = base.slice(0, 1, 3).slice(1, 2, 5).t();  // [3, 2], strides [1, 6], offset 8
  DLManagedTensor* m = to_dlpack(view);
  const DLTensor& dl = m->dl_tensor;
  CHECK(dl.device.device_type == kDLCPU);
  CHECK(dl.ndim == 2);
  CHECK((dl.dtype.code == kDLInt && dl.dtype.bits == 32 && dl.dtype.lanes == 1));
  CHECK((dl.shape[0] == 3 && dl.shape[1] == 2));
  CHECK((dl.strides[0] == 1 && dl.strides[1] == 6));
  CHECK(static_cast<int32_t*>(dl.data)[dl.byte_offset / 4] == 8);  // element [0, 0]
  base = Tensor();
  view = Tensor();  // the export holds the memory now
  CHECK(static_cast<int32_t*>(dl.data)[dl.byte_offset / 4 + 6] == 14);
  m->deleter(m);
}

TEST_CASE("DLPack import shares memory and runs the producer's deleter once", "[dlpack]") {
  static int deleted = 0;
  deleted = 0;
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  auto* m = new DLManagedTensorVersioned{};
  m->version = {1, 0};
  m->deleter = [](DLManagedTensorVersioned* p) {
    ++deleted;
    delete p;
  };
  m->dl_tensor = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, nullptr, 4};  // offset 1 float
  {
    Tensor t = from_dlpack(m);
    CHECK(t.sizes()[0] == 2);
    CHECK(t.strides()[0] == 3);  // null strides: row-major
    CHECK(t.data<float>()[0] == 1.0f);
    data[2] = 42;
    CHECK(t.data<float>()[1] == 42.0f);  // no copy
    Tensor v = t.t();
    t = Tensor();
    CHECK(deleted == 0);  // a view still holds it
  }
  CHECK(deleted == 1);
}

TEST_CASE("DLPack import refuses what it cannot read, and still frees it", "[dlpack]") {
  static int deleted = 0;
  deleted = 0;
  int64_t shape[1] = {2};
  int64_t strides[1] = {-1};
  double data[2] = {0, 0};
  auto make = [&](DLDataType dt, int64_t* st, uint32_t major, int32_t device_type) {
    auto* m = new DLManagedTensorVersioned{};
    m->version = {major, 0};
    m->deleter = [](DLManagedTensorVersioned* p) {
      ++deleted;
      delete p;
    };
    m->dl_tensor = {data, {device_type, 0}, 1, dt, shape, st, 0};
    return m;
  };
  CHECK_THROWS_WITH(from_dlpack(make({kDLComplex, 64, 1}, nullptr, 1, kDLCPU)),
                    Contains("no dtype for DLPack code 5"));
  CHECK_THROWS_WITH(from_dlpack(make({kDLFloat, 32, 4}, nullptr, 1, kDLCPU)), Contains("lanes"));
  CHECK_THROWS_WITH(from_dlpack(make({kDLFloat, 64, 1}, strides, 1, kDLCPU)),
                    Contains("negative stride"));
  CHECK_THROWS_WITH(from_dlpack(make({kDLFloat, 64, 1}, nullptr, 2, kDLCPU)),
                    Contains("DLPack 2.x"));
  CHECK_THROWS_WITH(from_dlpack(make({kDLFloat, 64, 1}, nullptr, 1, kDLMetal)),
                    Contains("device type 8"));
  CHECK(deleted == 5);
  // Shapes and strides that reach past int64 (found by tests/fuzz/dlpack_fuzz.cpp),
  // negative sizes, and device ids a plexus device cannot hold.
  int64_t big_shape[2] = {2, 2}, big_strides[2] = {int64_t(1) << 62, int64_t(1) << 62};
  auto two_d = [&](int64_t* sh, int64_t* st) {
    DLManagedTensorVersioned* m = make({kDLFloat, 64, 1}, st, 1, kDLCPU);
    m->dl_tensor.ndim = 2;
    m->dl_tensor.shape = sh;
    return m;
  };
  CHECK_THROWS_WITH(from_dlpack(two_d(big_shape, big_strides)), Contains("reach past 2^63"));
  int64_t huge_shape[2] = {int64_t(1) << 40, int64_t(1) << 40};
  CHECK_THROWS_WITH(from_dlpack(two_d(huge_shape, nullptr)), Contains("more than 2^63"));
  int64_t negative_shape[2] = {3, -2};
  CHECK_THROWS_WITH(from_dlpack(two_d(negative_shape, nullptr)), Contains("negative size -2"));
  DLManagedTensorVersioned* far = make({kDLFloat, 64, 1}, nullptr, 1, kDLCUDA);
  far->dl_tensor.device.device_id = 70000;
  CHECK_THROWS_WITH(from_dlpack(far), Contains("device id 70000 is out of range"));
  CHECK(deleted == 9);
}

TEST_CASE("DLPack export refuses devices it has no code for", "[dlpack]") {
  CHECK(dlpack_device(Device()).device_type == kDLCPU);
  Tensor t = empty({2}, TensorOptions(DType::BF16));
  DLManagedTensorVersioned* m = to_dlpack_versioned(t, /*read_only=*/true);
  CHECK(m->version.major == 1);
  CHECK((m->flags & PLEXUS_DLPACK_FLAG_READ_ONLY) != 0);
  CHECK(m->dl_tensor.dtype.code == kDLBfloat);
  m->deleter(m);
}
