// copy_ between any two dtypes (the host broadcasts src to self's shape),
// converting as the host does: integers through float into the 16-bit
// floats, float64 rounded once; floats into integers truncated, saturated,
// NaN to 0; integers wrap; anything into bool is "not zero". And fill_ of
// every dtype.
#include <cstring>
#include <limits>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

template <typename D>
constexpr bool is_16bit_float = std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>;

// A floating value into integer D: NaN is 0, out of range saturates.
template <typename D, typename C>
__device__ __forceinline__ D saturate(C v) {
  if (v != v) return D(0);
  if (v <= C(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
  if (v >= C(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return D(v);
}

// S to D. Bool sources arrive as their bytes (uint8 0 or 1).
template <typename D, typename S, bool Bool = false>
struct Convert {
  __device__ D operator()(S v) const {
    if constexpr (std::is_same_v<D, bool>) {
      if constexpr (std::is_integral_v<S>)
        return v != 0;
      else
        return compute_t<S>(v) != compute_t<S>(0);
    } else if constexpr (Bool && std::is_integral_v<D>)
      return D(v != 0 ? 1 : 0);
    else if constexpr (Bool)
      return D(v != 0 ? 1.0f : 0.0f);
    else if constexpr (std::is_integral_v<D> && std::is_integral_v<S>)
      return D(v);  // wraps
    else if constexpr (std::is_integral_v<D>)
      return saturate<D>(compute_t<S>(v));
    else if constexpr (std::is_integral_v<S> && is_16bit_float<D>)
      return D(float(v));
    else if constexpr (std::is_integral_v<S> || std::is_same_v<S, double> ||
                       std::is_same_v<S, float>)
      return D(v);
    else
      return D(float(v));  // from a 16-bit float
  }
};

template <typename D>
void copy_into(const plexus_kernel_call& call, const plexus_tensor* const (&t)[2]) {
  switch (t[1]->dtype) {
    case PLEXUS_DTYPE_BOOL:
      return launch_map<D, uint8_t, 2>(call, t, Convert<D, uint8_t, true>{});
    case PLEXUS_DTYPE_U8:
      return launch_map<D, uint8_t, 2>(call, t, Convert<D, uint8_t>{});
    case PLEXUS_DTYPE_I8:
      return launch_map<D, int8_t, 2>(call, t, Convert<D, int8_t>{});
    case PLEXUS_DTYPE_I16:
      return launch_map<D, int16_t, 2>(call, t, Convert<D, int16_t>{});
    case PLEXUS_DTYPE_I32:
      return launch_map<D, int32_t, 2>(call, t, Convert<D, int32_t>{});
    case PLEXUS_DTYPE_I64:
      return launch_map<D, int64_t, 2>(call, t, Convert<D, int64_t>{});
    case PLEXUS_DTYPE_F16:
      return launch_map<D, Half, 2>(call, t, Convert<D, Half>{});
    case PLEXUS_DTYPE_BF16:
      return launch_map<D, BFloat16, 2>(call, t, Convert<D, BFloat16>{});
    case PLEXUS_DTYPE_F32:
      return launch_map<D, float, 2>(call, t, Convert<D, float>{});
    case PLEXUS_DTYPE_F64:
      return launch_map<D, double, 2>(call, t, Convert<D, double>{});
  }
  sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "copy_ on " + device_name(call.device_index) +
                                          ": unknown source dtype " + std::to_string(t[1]->dtype));
}

// Dense copies of one dtype between separate ranges are the copy engine's:
// cudaMemcpyAsync beat a plain copy kernel by 8% on an H200 (README.md).
bool copy_dense(const plexus_kernel_call& call, const plexus_tensor* const (&t)[2]) {
  if (t[0]->dtype != t[1]->dtype) return false;
  Layout<2> l = make_layout(call, t);
  if (l.ndim != 1 || l.strides[0][0] != 1 || l.strides[1][0] != 1) return false;
  size_t bytes = size_t(l.numel) * size_t(dtype_size(t[0]->dtype));
  auto *dst = static_cast<char*>(l.data[0]), *src = static_cast<char*>(l.data[1]);
  if (dst < src + bytes && src < dst + bytes) return dst == src;  // the same bytes: nothing to do
  check_gpu(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDeviceToDevice, stream_of(call)),
            call.device_index, PLEXUS_GPU_PREFIX "MemcpyAsync (copy_)");
  return true;
}

// copy_(self, src, non_blocking)
void copy_(const plexus_kernel_call& call) {
  const plexus_tensor* const t[2] = {tensor_arg(call, 0), tensor_arg(call, 1)};
  if (copy_dense(call, t)) return;
  if (t[0]->dtype == PLEXUS_DTYPE_BOOL) return copy_into<bool>(call, t);
  visit_all(t[0]->dtype, [&](auto tag) { copy_into<decltype(tag)>(call, t); });
}

template <typename W>
struct Constant {
  W v;
  __device__ W operator()(W) const { return v; }
};

template <typename W>
void fill_words(const plexus_kernel_call& call, const plexus_tensor* self, uint64_t bits) {
  W v;
  memcpy(&v, &bits, sizeof v);  // little-endian: the low bytes hold the value
  launch_map<W, W, 2>(call, {self, self}, Constant<W>{v});
}

// fill_.Scalar(self, value): the value converted on the host as the host
// converts scalars, then stored as a word of the element's size.
void fill_(const plexus_kernel_call& call) {
  sdk::Scalar value = sdk::Args(call).scalar(1);
  const plexus_tensor* self = tensor_arg(call, 0);
  uint64_t bits = 0;
  sdk::visit_dtype(self->dtype, [&](auto tag) {
    auto v = value.to<typename decltype(tag)::type>();
    memcpy(&bits, &v, sizeof v);
  });
  switch (dtype_size(self->dtype)) {
    case 1:
      return fill_words<uint8_t>(call, self, bits);
    case 2:
      return fill_words<uint16_t>(call, self, bits);
    case 4:
      return fill_words<uint32_t>(call, self, bits);
    default:
      return fill_words<uint64_t>(call, self, bits);
  }
}

}  // namespace

void register_copy(GpuBackend& b) {
  b.register_kernel<&copy_>("copy_", sdk::kAllDTypes);
  b.register_kernel<&fill_>("fill_.Scalar", sdk::kAllDTypes);
}

}  // namespace plexus::gpu
