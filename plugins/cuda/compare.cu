// Comparisons into bool (eq, ne, lt, le, gt, ge against a tensor or a
// scalar) and where(condition, self, other), for every dtype: integers and
// bool compare exactly, float16 and bfloat16 in float.
#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

enum class Cmp { eq, ne, lt, le, gt, ge };

template <Cmp K, typename C>
__device__ __forceinline__ bool compare(C a, C b) {
  if constexpr (K == Cmp::eq) return a == b;
  if constexpr (K == Cmp::ne) return a != b;
  if constexpr (K == Cmp::lt) return a < b;
  if constexpr (K == Cmp::le) return a <= b;
  if constexpr (K == Cmp::gt) return a > b;
  return a >= b;
}

template <Cmp K, typename C>
struct TensorCmp {
  __device__ bool operator()(C a, C b) const { return compare<K>(a, b); }
};
template <Cmp K, typename C>
struct ScalarCmp {
  C other;
  __device__ bool operator()(C a) const { return compare<K>(a, other); }
};

// The SDK's type for T, to convert a scalar as the host does.
template <typename T>
struct SdkType {
  using type = T;
};
template <>
struct SdkType<Half> {
  using type = sdk::Half;
};
template <>
struct SdkType<BFloat16> {
  using type = sdk::BFloat16;
};

// <cmp>.Tensor_out(self, other, *, out)
template <Cmp K>
void compare_tensor_out(const plexus_kernel_call& call) {
  visit_all(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_map<bool, T, 3>(call, {tensor_arg(call, 2), tensor_arg(call, 0), tensor_arg(call, 1)},
                           TensorCmp<K, compute_t<T>>{});
  });
}

// <cmp>.Scalar_out(self, other, *, out): other is first rounded to self's dtype.
template <Cmp K>
void compare_scalar_out(const plexus_kernel_call& call) {
  sdk::Scalar other = sdk::Args(call).scalar(1);
  if (call.dtype == PLEXUS_DTYPE_BOOL) {  // bool converts as bool, then compares as its byte
    launch_map<bool, uint8_t, 2>(call, {tensor_arg(call, 2), tensor_arg(call, 0)},
                                 ScalarCmp<K, uint8_t>{uint8_t(other.to<bool>() ? 1 : 0)});
    return;
  }
  visit_all(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    C v = static_cast<C>(other.to<typename SdkType<T>::type>());
    launch_map<bool, T, 2>(call, {tensor_arg(call, 2), tensor_arg(call, 0)}, ScalarCmp<K, C>{v});
  });
}

template <typename W>
__global__ void where_kernel(Layout<4> l) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[4];
    offsets_of(l, i, off);
    bool c = static_cast<const bool*>(l.data[1])[off[1]];
    static_cast<W*>(l.data[0])[off[0]] =
        c ? static_cast<const W*>(l.data[2])[off[2]] : static_cast<const W*>(l.data[3])[off[3]];
  }
}

// where.self_out(condition, self, other, *, out): condition is bool.
void where_out(const plexus_kernel_call& call) {
  Layout<4> l = make_layout<4>(
      call, {tensor_arg(call, 3), tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)});
  if (l.numel == 0) return;
  auto* kernel = &where_kernel<uint8_t>;
  switch (dtype_size(call.dtype)) {
    case 2:
      kernel = &where_kernel<uint16_t>;
      break;
    case 4:
      kernel = &where_kernel<uint32_t>;
      break;
    case 8:
      kernel = &where_kernel<uint64_t>;
      break;
  }
  PLEXUS_LAUNCH(kernel, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l);
  check_launch(call, "where_kernel");
}

template <Cmp K>
void register_comparison(GpuBackend& b, const char* tensor_op, const char* scalar_op) {
  b.register_kernel<&compare_tensor_out<K>>(tensor_op, sdk::kAllDTypes);
  b.register_kernel<&compare_scalar_out<K>>(scalar_op, sdk::kAllDTypes);
}

}  // namespace

void register_compare(GpuBackend& b) {
  register_comparison<Cmp::eq>(b, "eq.Tensor_out", "eq.Scalar_out");
  register_comparison<Cmp::ne>(b, "ne.Tensor_out", "ne.Scalar_out");
  register_comparison<Cmp::lt>(b, "lt.Tensor_out", "lt.Scalar_out");
  register_comparison<Cmp::le>(b, "le.Tensor_out", "le.Scalar_out");
  register_comparison<Cmp::gt>(b, "gt.Tensor_out", "gt.Scalar_out");
  register_comparison<Cmp::ge>(b, "ge.Tensor_out", "ge.Scalar_out");
  b.register_kernel<&where_out>("where.self_out", sdk::kAllDTypes);
}

}  // namespace plexus::gpu
