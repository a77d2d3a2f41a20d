// copy_ into float32 from any dtype (the host broadcasts src to self's
// shape), and fill_ of float32 tensors.
#include <cstring>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);

__device__ __forceinline__ float bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

// IEEE binary16 to float, exactly (subnormals, infinities, NaN).
__device__ __forceinline__ float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float v = float(man) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

template <typename S>
struct ToFloat {
  __device__ float operator()(S v) const { return float(v); }
};
struct HalfToFloat {
  __device__ float operator()(uint16_t v) const { return half_to_float(v); }
};
struct BFloat16ToFloat {
  __device__ float operator()(uint16_t v) const { return bits_to_float(uint32_t(v) << 16); }
};
struct BoolToFloat {
  __device__ float operator()(uint8_t v) const { return v != 0 ? 1.0f : 0.0f; }
};

// copy_(self, src, non_blocking)
void copy_(const plexus_kernel_call& call) {
  const plexus_tensor* const t[2] = {tensor_arg(call, 0), tensor_arg(call, 1)};
  switch (t[1]->dtype) {
    case PLEXUS_DTYPE_BOOL:
      return launch_map<float, uint8_t, 2>(call, t, BoolToFloat{});
    case PLEXUS_DTYPE_U8:
      return launch_map<float, uint8_t, 2>(call, t, ToFloat<uint8_t>{});
    case PLEXUS_DTYPE_I8:
      return launch_map<float, int8_t, 2>(call, t, ToFloat<int8_t>{});
    case PLEXUS_DTYPE_I16:
      return launch_map<float, int16_t, 2>(call, t, ToFloat<int16_t>{});
    case PLEXUS_DTYPE_I32:
      return launch_map<float, int32_t, 2>(call, t, ToFloat<int32_t>{});
    case PLEXUS_DTYPE_I64:
      return launch_map<float, int64_t, 2>(call, t, ToFloat<int64_t>{});
    case PLEXUS_DTYPE_F16:
      return launch_map<float, uint16_t, 2>(call, t, HalfToFloat{});
    case PLEXUS_DTYPE_BF16:
      return launch_map<float, uint16_t, 2>(call, t, BFloat16ToFloat{});
    case PLEXUS_DTYPE_F32:
      return launch_map<float, float, 2>(call, t, ToFloat<float>{});
    case PLEXUS_DTYPE_F64:
      return launch_map<float, double, 2>(call, t, ToFloat<double>{});
  }
  sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "copy_ on " + device_name(call.device_index) +
                                          ": unknown source dtype " + std::to_string(t[1]->dtype));
}

struct Constant {
  float v;
  __device__ float operator()(float) const { return v; }
};

// fill_.Scalar(self, value): self as both operands; the input is not read for its value.
void fill_(const plexus_kernel_call& call) {
  float v = sdk::Args(call).scalar(1).to<float>();
  const plexus_tensor* self = tensor_arg(call, 0);
  launch_map<float, float, 2>(call, {self, self}, Constant{v});
}

}  // namespace

void register_copy(const Registrar& r) {
  r.kernel<&copy_>("copy_", kF32);
  r.kernel<&fill_>("fill_.Scalar", kF32);
}

}  // namespace plexus::gpu
