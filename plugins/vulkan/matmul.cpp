// Matrix products mm.out, bmm.out, addmm.out as one batched product
// out = beta * self + alpha * (a @ b) over strided views: shaders/matmul.comp
// (64x64 tiles staged in shared memory). Accumulates in the compute type.
#include <cstring>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

// Mirrors `Push` in shaders/matmul.comp.
struct MatmulPush {
  uint64_t out, a, b, c;
  int32_t M, N, K, use_c;
  int32_t so[3], sa[3], sb[3], sc[3];
  uint64_t alpha, beta;
};
static_assert(sizeof(MatmulPush) == 112);

// Batch, row and column strides of a 2-D or 3-D tensor (batch stride 0 for 2-D).
void strides3(const plexus_tensor& t, int32_t s[3]) {
  bool b3 = t.ndim == 3;
  s[0] = b3 ? int32_t(t.strides[0]) : 0;
  s[1] = int32_t(t.strides[t.ndim - 2]);
  s[2] = int32_t(t.strides[t.ndim - 1]);
}

bool is_zero(const sdk::Scalar& s) {
  return s.is_floating() ? s.to_double() == 0.0 : s.to_int() == 0;
}

void product(VulkanBackend& be, const plexus_kernel_call& call, const plexus_tensor& a,
             const plexus_tensor& b, const plexus_tensor& out, const plexus_tensor* self,
             const sdk::Scalar& alpha, const sdk::Scalar& beta) {
  int64_t batch = out.ndim == 3 ? out.sizes[0] : 1;
  int64_t m = out.sizes[out.ndim - 2], n = out.sizes[out.ndim - 1], k = a.sizes[a.ndim - 1];
  if (batch * m * n == 0) return;
  if (batch > 65535 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string("vulkan ") + call.op + ": batch " +
                                            std::to_string(batch) + " over 65535");
  MatmulPush p{};
  p.out = address_of(out);
  p.a = address_of(a);
  p.b = address_of(b);
  p.M = int32_t(m);
  p.N = int32_t(n);
  p.K = int32_t(k);
  strides3(out, p.so);
  strides3(a, p.sa);
  strides3(b, p.sb);
  if (self && !is_zero(beta)) {
    p.use_c = 1;
    p.c = address_of(*self);
    strides3(*self, p.sc);
  }
  p.alpha = scalar_bits(alpha, call.dtype);
  p.beta = scalar_bits(beta, call.dtype);
  be.device(call.device_index)
      .dispatch(call.stream, module_name("matmul", call.dtype).c_str(), {}, &p, sizeof p, nullptr,
                0, uint32_t((n + 63) / 64), uint32_t((m + 63) / 64), uint32_t(batch));
}

plexus_scalar int_scalar(int64_t v) {
  plexus_scalar s{};
  s.kind = PLEXUS_SCALAR_INT;
  s.v.i = v;
  return s;
}

// mm.out(self, mat2, *, out) and bmm.out(self, mat2, *, out)
void mm_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  product(b, call, args.tensor(0), args.tensor(1), args.tensor(2), nullptr,
          sdk::Scalar(int_scalar(1)), sdk::Scalar(int_scalar(0)));
}

// addmm.out(self, mat1, mat2, *, beta, alpha, out)
void addmm_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  product(b, call, args.tensor(1), args.tensor(2), args.tensor(5), &args.tensor(0), args.scalar(4),
          args.scalar(3));
}

}  // namespace

void register_matmul(VulkanBackend& b) {
  b.register_kernel<&mm_out>("mm.out", sdk::kNumericDTypes);
  b.register_kernel<&mm_out>("bmm.out", sdk::kNumericDTypes);
  b.register_kernel<&addmm_out>("addmm.out", sdk::kNumericDTypes);
}

}  // namespace plexus::vulkan
