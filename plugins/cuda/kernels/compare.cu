// Comparisons of float32 tensors into bool (eq, ne, lt, le, gt, ge against a
// tensor or a scalar) and where(condition, self, other) in float32.
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);

enum class Cmp { eq, ne, lt, le, gt, ge };

template <Cmp C>
__device__ __forceinline__ bool compare(float a, float b) {
  if constexpr (C == Cmp::eq) return a == b;
  if constexpr (C == Cmp::ne) return a != b;
  if constexpr (C == Cmp::lt) return a < b;
  if constexpr (C == Cmp::le) return a <= b;
  if constexpr (C == Cmp::gt) return a > b;
  return a >= b;
}

template <Cmp C>
struct TensorCmp {
  __device__ bool operator()(float a, float b) const { return compare<C>(a, b); }
};
template <Cmp C>
struct ScalarCmp {
  float other;
  __device__ bool operator()(float a) const { return compare<C>(a, other); }
};

// <cmp>.Tensor_out(self, other, *, out)
template <Cmp C>
void compare_tensor_out(const plexus_kernel_call& call) {
  launch_map<bool, float, 3>(call, {tensor_arg(call, 2), tensor_arg(call, 0), tensor_arg(call, 1)},
                             TensorCmp<C>{});
}

// <cmp>.Scalar_out(self, other, *, out)
template <Cmp C>
void compare_scalar_out(const plexus_kernel_call& call) {
  float other = sdk::Args(call).scalar(1).to<float>();
  launch_map<bool, float, 2>(call, {tensor_arg(call, 2), tensor_arg(call, 0)}, ScalarCmp<C>{other});
}

__global__ void where_kernel(Layout<4> l) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[4];
    offsets_of(l, i, off);
    bool c = static_cast<const bool*>(l.data[1])[off[1]];
    static_cast<float*>(l.data[0])[off[0]] = c ? static_cast<const float*>(l.data[2])[off[2]]
                                               : static_cast<const float*>(l.data[3])[off[3]];
  }
}

// where.self_out(condition, self, other, *, out): condition is bool.
void where_out(const plexus_kernel_call& call) {
  Layout<4> l = make_layout<4>(
      call, {tensor_arg(call, 3), tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)});
  if (l.numel == 0) return;
  PLEXUS_LAUNCH(where_kernel, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l);
  check_launch(call, "where_kernel");
}

template <Cmp C>
void register_comparison(const Registrar& r, const char* tensor_op, const char* scalar_op) {
  r.kernel<&compare_tensor_out<C>>(tensor_op, kF32);
  r.kernel<&compare_scalar_out<C>>(scalar_op, kF32);
}

}  // namespace

void register_compare(const Registrar& r) {
  register_comparison<Cmp::eq>(r, "eq.Tensor_out", "eq.Scalar_out");
  register_comparison<Cmp::ne>(r, "ne.Tensor_out", "ne.Scalar_out");
  register_comparison<Cmp::lt>(r, "lt.Tensor_out", "lt.Scalar_out");
  register_comparison<Cmp::le>(r, "le.Tensor_out", "le.Scalar_out");
  register_comparison<Cmp::gt>(r, "gt.Tensor_out", "gt.Scalar_out");
  register_comparison<Cmp::ge>(r, "ge.Tensor_out", "ge.Scalar_out");
  r.kernel<&where_out>("where.self_out", kF32);
}

}  // namespace plexus::gpu
