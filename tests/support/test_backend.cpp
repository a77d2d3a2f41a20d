#include "support/test_backend.h"

#include <cstdlib>
#include <cstring>

#include "plexus/dtype_dispatch.h"

namespace plexus::testing {
namespace {

// Device memory is host memory underneath, but the core only reaches it
// through this backend, and every copy is counted.
class TestdevBackend final : public DeviceBackend {
 public:
  int device_count() override { return 2; }
  DeviceProperties properties(int i) override {
    return {"testdev " + std::to_string(i), "plexus tests", "emulated", 1 << 30};
  }
  void* allocate(int, size_t n) override {
    if (n > (size_t{1} << 34)) fail(ErrorCode::OutOfMemory, "testdev: {} bytes is too many", n);
    return std::malloc(n);
  }
  void deallocate(int, void* p, size_t) noexcept override { std::free(p); }
  void copy_from_host(int, void* d, size_t doff, const void* s, size_t n) override {
    testdev_transfers().to_device += n;
    std::memcpy(static_cast<char*>(d) + doff, s, n);
  }
  void copy_to_host(int, void* d, const void* s, size_t soff, size_t n) override {
    testdev_transfers().to_host += n;
    std::memcpy(d, static_cast<const char*>(s) + soff, n);
  }
  void copy_on_device(int, void* d, size_t doff, const void* s, size_t soff, size_t n) override {
    testdev_transfers().on_device += n;
    std::memcpy(static_cast<char*>(d) + doff, static_cast<const char*>(s) + soff, n);
  }
  void synchronize(int) override {}
};

}  // namespace

DeviceType testdev() {
  static DeviceType slot = [] {
    DeviceType t = register_device_type("testdev");
    set_device_backend(t, std::make_shared<TestdevBackend>());
    return t;
  }();
  return slot;
}

TransferCounts& testdev_transfers() {
  static TransferCounts c;
  return c;
}

ScopedKernel::ScopedKernel(std::string op, DeviceType backend, KernelFn fn, DTypeSet dtypes,
                           void* ctx)
    : op_(std::move(op)), backend_(backend) {
  Dispatcher& d = Dispatcher::get();
  if (const KernelEntry* e = d.op(op_).kernel(backend)) {
    previous_ = *e;
    had_previous_ = true;
  }
  d.register_kernel(op_, backend, fn, ctx, dtypes, "test", true);
}

ScopedKernel::~ScopedKernel() {
  Dispatcher& d = Dispatcher::get();
  if (had_previous_)
    d.register_kernel(op_, backend_, previous_.fn, previous_.ctx, previous_.dtypes,
                      previous_.source, true);
  else
    d.unregister_kernel(op_, backend_);
}

RecordedCall& recorded() {
  static RecordedCall r;
  return r;
}

void recording_kernel(void*, KernelCall& call) {
  RecordedCall& r = recorded();
  r.dtype = call.dtype;
  r.tensor_sizes.clear();
  r.tensor_dtypes.clear();
  for (const Value& v : call.args)
    if (v.is_tensor()) {
      r.tensor_sizes.emplace_back(v.to_tensor().sizes().begin(), v.to_tensor().sizes().end());
      r.tensor_dtypes.push_back(v.to_tensor().dtype());
    }
  r.calls++;
}

void reference_add_kernel(void*, KernelCall& call) {
  const Tensor& a = call.args[0].to_tensor();
  const Tensor& b = call.args[1].to_tensor();
  double alpha = call.args[2].to_scalar().to_double();
  const Tensor& out = call.args[3].to_tensor();
  // Visit every index of out (all inputs already have out's shape).
  Shape idx(out.dim(), 0);
  for (int64_t n = 0; n < out.numel(); ++n) {
    int64_t oa = 0, ob = 0, oo = 0;
    for (int64_t d = 0; d < out.dim(); ++d) {
      oa += idx[d] * a.strides()[d];
      ob += idx[d] * b.strides()[d];
      oo += idx[d] * out.strides()[d];
    }
    visit_dtype(out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        static_cast<T*>(out.data_ptr())[oo] = static_cast<const T*>(a.data_ptr())[oa] +
                                              alpha * static_cast<const T*>(b.data_ptr())[ob];
      } else {
        fail(ErrorCode::Unsupported, "reference add: float32/float64 only");
      }
    });
    for (int64_t d = out.dim() - 1; d >= 0; --d) {
      if (++idx[d] < out.sizes()[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace plexus::testing
