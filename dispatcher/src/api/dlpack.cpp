// DLPack export and import (plexus/dlpack.h).
#include "plexus/dlpack.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "plexus/error.h"
#include "plexus/factories.h"

namespace plexus {
namespace {

DLDataType dl_dtype(DType t) {
  switch (t) {
    case DType::Bool: return {kDLBool, 8, 1};
    case DType::U8: return {kDLUInt, 8, 1};
    case DType::I8: return {kDLInt, 8, 1};
    case DType::I16: return {kDLInt, 16, 1};
    case DType::I32: return {kDLInt, 32, 1};
    case DType::I64: return {kDLInt, 64, 1};
    case DType::F16: return {kDLFloat, 16, 1};
    case DType::BF16: return {kDLBfloat, 16, 1};
    case DType::F32: return {kDLFloat, 32, 1};
    case DType::F64: return {kDLFloat, 64, 1};
  }
  fail(ErrorCode::Unsupported, "DLPack: no DLPack dtype for {}", dtype_name(t));
}

DType plexus_dtype(DLDataType d) {
  if (d.lanes != 1)
    fail(ErrorCode::InvalidArgument, "from_dlpack: vector dtypes (lanes = {}) are not supported",
         d.lanes);
  switch (d.code) {
    case kDLBool:
      if (d.bits == 8) return DType::Bool;
      break;
    case kDLUInt:
      if (d.bits == 8) return DType::U8;
      break;
    case kDLInt:
      if (d.bits == 8) return DType::I8;
      if (d.bits == 16) return DType::I16;
      if (d.bits == 32) return DType::I32;
      if (d.bits == 64) return DType::I64;
      break;
    case kDLFloat:
      if (d.bits == 16) return DType::F16;
      if (d.bits == 32) return DType::F32;
      if (d.bits == 64) return DType::F64;
      break;
    case kDLBfloat:
      if (d.bits == 16) return DType::BF16;
      break;
    default: break;
  }
  fail(ErrorCode::Unsupported, "from_dlpack: plexus has no dtype for DLPack code {} with {} bits",
       int(d.code), int(d.bits));
}

// What an exported tensor owns: the tensor (its storage) and the arrays the
// DLTensor points at.
template <typename Managed>
struct Export {
  Managed managed{};
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

template <typename Managed>
Managed* export_tensor(const Tensor& t, DLTensor*& dl) {
  auto* e = new Export<Managed>;
  e->tensor = t.detach();  // no autograd state travels
  e->shape.assign(t.sizes().begin(), t.sizes().end());
  e->strides.assign(t.strides().begin(), t.strides().end());
  e->managed.manager_ctx = e;
  e->managed.deleter = [](Managed* self) {
    delete static_cast<Export<Managed>*>(self->manager_ctx);
  };
  dl = &e->managed.dl_tensor;
  dl->data = t.storage()->data();
  dl->byte_offset = static_cast<uint64_t>(t.storage_offset()) * t.itemsize();
  dl->device = dlpack_device(t.device());
  if (dl->device.device_type == kDLVulkan) {
    delete e;
    fail(ErrorCode::Unsupported,
         "DLPack: {} memory cannot be shared: its data pointer is the vulkan plugin's "
         "allocation handle, which no other framework can read; copy the tensor to the cpu "
         "first",
         t.device().str());
  }
  dl->ndim = static_cast<int32_t>(t.dim());
  dl->dtype = dl_dtype(t.dtype());
  dl->shape = e->shape.data();
  dl->strides = e->strides.data();
  // cpu consumers (numpy) read data directly: give them element [0, ...].
  if (t.device().is_cpu()) {
    dl->data = static_cast<char*>(dl->data) + dl->byte_offset;
    dl->byte_offset = 0;
  }
  return &e->managed;
}

template <typename Managed>
Tensor import_tensor(Managed* m) {
  // Whatever happens, the producer's deleter runs once.
  std::shared_ptr<Managed> owner(m, [](Managed* p) {
    if (p->deleter) p->deleter(p);
  });
  const DLTensor& dl = m->dl_tensor;
  DType dtype = plexus_dtype(dl.dtype);
  const bool host_memory = dl.device.device_type == kDLCPU ||
                           dl.device.device_type == kDLCUDAHost ||
                           dl.device.device_type == kDLROCMHost;
  PLEXUS_CHECK(host_memory || (dl.device.device_id >= 0 && dl.device.device_id <= INT16_MAX),
               ErrorCode::InvalidArgument, "from_dlpack: device id {} is out of range [0, {}]",
               dl.device.device_id, INT16_MAX);
  Device device;
  switch (dl.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost: device = Device(); break;
    case kDLCUDA:
    case kDLCUDAManaged: device = Device(find_device_type("cuda").value_or(kCPU), static_cast<int16_t>(dl.device.device_id)); break;
    case kDLROCM: device = Device(find_device_type("hip").value_or(kCPU), static_cast<int16_t>(dl.device.device_id)); break;
    default:
      fail(ErrorCode::Unsupported, "from_dlpack: DLPack device type {} is not supported",
           dl.device.device_type);
  }
  if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost &&
      dl.device.device_type != kDLROCMHost && device.is_cpu())
    fail(ErrorCode::Unsupported,
         "from_dlpack: DLPack device type {} needs its plugin (cuda or hip), which is not loaded",
         dl.device.device_type);
  PLEXUS_CHECK(dl.ndim >= 0, ErrorCode::InvalidArgument, "from_dlpack: ndim {} is negative",
               dl.ndim);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim), strides(static_cast<size_t>(dl.ndim));
  for (int32_t d = 0; d < dl.ndim; ++d)
    PLEXUS_CHECK(sizes[static_cast<size_t>(d)] >= 0, ErrorCode::InvalidArgument,
                 "from_dlpack: negative size {} in dim {}", sizes[static_cast<size_t>(d)], d);
  // Without strides the tensor is contiguous (its row-major strides must fit
  // int64); from_blob checks how far given strides reach.
  int64_t step = 1;
  for (int32_t d = dl.ndim - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = dl.strides ? dl.strides[d] : step;
    PLEXUS_CHECK(strides[static_cast<size_t>(d)] >= 0, ErrorCode::InvalidArgument,
                 "from_dlpack: negative stride {} in dim {} (plexus views have none)",
                 strides[static_cast<size_t>(d)], d);
    const int64_t size = std::max<int64_t>(sizes[static_cast<size_t>(d)], 1);
    PLEXUS_CHECK(dl.strides || !__builtin_mul_overflow(step, size, &step),
                 ErrorCode::InvalidArgument, "from_dlpack: shape {} has more than 2^63 elements",
                 shape_str(sizes));
  }
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  return from_blob(data, sizes, strides, TensorOptions(dtype, device),
                   [owner](void*) mutable { owner.reset(); });
}

}  // namespace

DLDevice dlpack_device(Device device) {
  std::string_view type = device_type_name(device.type);
  int32_t code = device.is_cpu() ? kDLCPU
                 : type == "cuda" ? kDLCUDA
                 : type == "hip" ? kDLROCM
                 : type == "vulkan" ? kDLVulkan
                                    : -1;
  if (code < 0)
    fail(ErrorCode::Unsupported,
         "DLPack: {} memory has no DLPack device type (DLPack knows cpu, cuda, hip and "
         "vulkan); copy the tensor to the cpu first",
         device.str());
  return {code, device.index};
}

DLManagedTensor* to_dlpack(const Tensor& t) {
  DLTensor* dl = nullptr;
  return export_tensor<DLManagedTensor>(t, dl);
}

DLManagedTensorVersioned* to_dlpack_versioned(const Tensor& t, bool read_only, bool is_copied) {
  DLTensor* dl = nullptr;
  DLManagedTensorVersioned* m = export_tensor<DLManagedTensorVersioned>(t, dl);
  m->version = {PLEXUS_DLPACK_MAJOR_VERSION, PLEXUS_DLPACK_MINOR_VERSION};
  m->flags = (read_only ? PLEXUS_DLPACK_FLAG_READ_ONLY : 0) |
             (is_copied ? PLEXUS_DLPACK_FLAG_IS_COPIED : 0);
  return m;
}

Tensor from_dlpack(DLManagedTensor* m) {
  PLEXUS_CHECK(m != nullptr, ErrorCode::InvalidArgument, "from_dlpack: null DLManagedTensor");
  return import_tensor(m);
}

Tensor from_dlpack(DLManagedTensorVersioned* m) {
  PLEXUS_CHECK(m != nullptr, ErrorCode::InvalidArgument,
               "from_dlpack: null DLManagedTensorVersioned");
  if (m->version.major != PLEXUS_DLPACK_MAJOR_VERSION) {
    uint32_t major = m->version.major;
    if (m->deleter) m->deleter(m);
    fail(ErrorCode::VersionMismatch, "from_dlpack: DLPack {}.x is not supported (plexus reads 1.x)",
         major);
  }
  return import_tensor(m);
}

}  // namespace plexus
