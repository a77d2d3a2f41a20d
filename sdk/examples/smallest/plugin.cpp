// mini: the smallest plexus plugin. One device whose memory is host memory,
// with float32 add and relu; every other op runs on the cpu (fallback policy
// cpu). Built against the installed SDK alone: see VENDOR_GUIDE.md.
#include "plexus/plugin.hpp"

namespace sdk = plexus::sdk;

namespace {

// The device type: memory and copies come from HostMemoryBackend.
struct Mini : sdk::HostMemoryBackend<Mini> {
  int32_t device_count() { return 1; }
  void properties(int32_t, plexus_device_properties& out) {
    describe(out, "mini device", "Example Corp", PLEXUS_DEVICE_KIND_ACCELERATOR, 1ull << 30);
  }
};

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out). The
// host has broadcast self and other to out's shape (Note [The out-variant
// contract] in plexus/plugin.h); only the arithmetic is left.
void add_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const float alpha = args.scalar(2).to<float>();
  sdk::elementwise(sdk::TensorView<float>(args.tensor(3)),
                   sdk::TensorView<const float>(args.tensor(0)),
                   sdk::TensorView<const float>(args.tensor(1)),
                   [alpha](float x, float y) { return x + alpha * y; });
}

// relu.out(Tensor self, *, Tensor(a!) out)
void relu_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::elementwise(sdk::TensorView<float>(args.tensor(1)),
                   sdk::TensorView<const float>(args.tensor(0)),
                   [](float x) { return x < 0 ? 0.0f : x; });  // NaN stays NaN
}

plexus_status init(const plexus_host_api* host, void** state) {
  return sdk::init_backend<Mini>(host, state, "mini", [](Mini& mini) {
    const uint32_t f32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
    mini.register_kernel<&add_out>("add.out", f32);
    mini.register_kernel<&relu_out>("relu.out", f32);
  });
}

}  // namespace

PLEXUS_SDK_PLUGIN(init, sdk::shutdown_backend<Mini>)
