// DLPack: tensors shared with other frameworks without copies (numpy, torch,
// JAX, CuPy). The structs are plexus's own declarations of the DLPack ABI
// (dlpack.h 1.x): the legacy DLManagedTensor that every consumer reads, and
// the versioned DLManagedTensorVersioned with its flags. Their layouts are
// the ABI: the sizes are pinned below.
//
//   DLManagedTensor* m = plexus::to_dlpack(t);   // the consumer calls m->deleter(m)
//   plexus::Tensor u = plexus::from_dlpack(m);   // takes ownership of m
#pragma once

#include <cstddef>
#include <cstdint>

#include "plexus/tensor.h"

extern "C" {

enum PlexusDLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
};

enum PlexusDLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDevice {
  int32_t device_type;  // PlexusDLDeviceType
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;  // PlexusDLDataTypeCode
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;  // for cpu a host address; with byte_offset added, element [0, ...]
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; never null from plexus
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

#define PLEXUS_DLPACK_MAJOR_VERSION 1u
#define PLEXUS_DLPACK_MINOR_VERSION 0u
#define PLEXUS_DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define PLEXUS_DLPACK_FLAG_IS_COPIED (UINT64_C(1) << 1)

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // extern "C"

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(DLTensor) == 48 && sizeof(DLManagedTensor) == 64);
static_assert(sizeof(DLManagedTensorVersioned) == 80);
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);

namespace plexus {

// The DLPack device of a plexus device: cpu, cuda, hip (kDLROCM) and vulkan;
// throws Unsupported for other device types (a vendor's memory has no
// DLPack meaning). vulkan has a code but its memory is never exported:
// plexus's vulkan data pointers are the plugin's allocation handles.
DLDevice dlpack_device(Device device);

// A managed DLPack view of t (no copy) that keeps t's storage alive until the
// consumer calls its deleter. Strides are always filled in. Throws
// Unsupported for a dtype or device DLPack cannot describe, and for vulkan
// memory. The caller orders device work: the view may be read once the
// tensor's stream has finished what it queued (Python's __dlpack__ does this).
DLManagedTensor* to_dlpack(const Tensor& t);
DLManagedTensorVersioned* to_dlpack_versioned(const Tensor& t, bool read_only = false,
                                              bool is_copied = false);

// A tensor over a DLPack tensor's memory; it owns `m` and calls its deleter
// when the last view of the memory is gone (also when this throws). Strides
// may be null (row-major). Throws InvalidArgument for lanes other than 1 or a
// negative stride, Unsupported for dtypes and devices plexus lacks, and
// VersionMismatch for a versioned tensor of another major version.
Tensor from_dlpack(DLManagedTensor* m);
Tensor from_dlpack(DLManagedTensorVersioned* m);

}  // namespace plexus
