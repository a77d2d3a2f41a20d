// Test helpers: a "testdev" device type whose memory is not host memory to
// the core (reached only through its DeviceBackend), and scoped kernels.
#pragma once

#include <string>

#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/ops.h"

namespace plexus::testing {

// The "testdev" device type (2 devices), registered on first use.
DeviceType testdev();
// Bytes the testdev backend has copied in each direction (for asserting transfers).
struct TransferCounts {
  size_t to_device = 0, to_host = 0, on_device = 0;
};
TransferCounts& testdev_transfers();

// Registers a kernel for the scope of a test, restoring what was there before.
class ScopedKernel {
 public:
  ScopedKernel(std::string op, DeviceType backend, KernelFn fn, DTypeSet dtypes,
               void* ctx = nullptr);
  ~ScopedKernel();
  ScopedKernel(const ScopedKernel&) = delete;
  ScopedKernel& operator=(const ScopedKernel&) = delete;

 private:
  std::string op_;
  DeviceType backend_;
  KernelEntry previous_{};
  bool had_previous_ = false;
};

// Sets the fallback policy for a scope.
class ScopedFallback {
 public:
  explicit ScopedFallback(FallbackPolicy p) : saved_(Dispatcher::get().fallback_policy()) {
    Dispatcher::get().set_fallback_policy(p);
  }
  ~ScopedFallback() { Dispatcher::get().set_fallback_policy(saved_); }

 private:
  FallbackPolicy saved_;
};

// A kernel that writes nothing: lets tests see the meta function's decisions
// (output shape and dtype) on any op. Records the last call's compute dtype
// and the sizes of each tensor argument.
struct RecordedCall {
  DType dtype = DType::F32;
  std::vector<std::vector<int64_t>> tensor_sizes;
  std::vector<DType> tensor_dtypes;
  int calls = 0;
};
RecordedCall& recorded();
void recording_kernel(void* ctx, KernelCall& call);

// A reference elementwise f32/f64 add kernel for any strided layout (for
// dispatch and fallback tests; the real kernels live in plugins).
void reference_add_kernel(void* ctx, KernelCall& call);

}  // namespace plexus::testing
