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

// The packed float32 product (shaders/matmul_packed.comp): a, b and out with
// contiguous rows a multiple of 4 elements apart (and batches too), starting
// on 16 bytes, K and N multiples of 4, a device that shuffles within groups of
// 8 invocations. c (when beta != 0) may have any strides. Returns false,
// recording nothing, when it does not apply.
bool product_packed(Device& dev, void* stream, int64_t batch, int64_t m, int64_t n, int64_t k,
                    const plexus_tensor& a, const plexus_tensor& b, const plexus_tensor& out,
                    const plexus_tensor* c, const sdk::Scalar& alpha, const sdk::Scalar& beta) {
  if (a.dtype != PLEXUS_DTYPE_F32 || !dev.info().subgroup_shuffle8 || k % 4 || n % 4) return false;
  int32_t sa[3], sb[3], so[3];
  strides3(a, sa);
  strides3(b, sb);
  strides3(out, so);
  for (const int32_t* s : {sa, sb, so})
    if ((s[2] != 1) || s[1] % 4 || s[0] % 4 || s[1] < 0 || s[0] < 0) return false;
  SgemmPush p{};
  VkBufferView av, bv, cv = VK_NULL_HANDLE;
  if (!texel_source(dev, a, av, p.a0) || !texel_source(dev, b, bv, p.b0) || !out.storage ||
      block_offset(out) % 16 != 0 || m > int64_t{65535} * 16 || batch > 65535 ||
      (n + 255) / 256 > 65535)
    return false;
  if (c) {
    const auto* ca = static_cast<const Allocation*>(c->storage);
    if (!ca || !(cv = dev.texel_view(ca, false))) return false;
    p.c0 = block_offset(*c) / 4;
    strides3(*c, p.cs);
    p.use_c = 1;
  }
  // The out binding spans out's elements of every batch.
  const int64_t span = ((batch - 1) * so[0] + (m - 1) * so[1] + n) * 4;
  if (span > int64_t(dev.info().max_storage_range)) return false;
  p.M = uint32_t(m);
  p.N4 = uint32_t(n / 4);
  p.K4 = uint32_t(k / 4);
  p.as = uint32_t(sa[1] / 4);
  p.ab = uint32_t(sa[0] / 4);
  p.bs = uint32_t(sb[1] / 4);
  p.bb = uint32_t(sb[0] / 4);
  p.os = uint32_t(so[1] / 4);
  p.ob = uint32_t(so[0] / 4);
  p.alpha = alpha.to<float>();
  p.beta = beta.to<float>();
  dev.dispatch_packed(stream, "matmul_packed", {}, &p, sizeof p,
                      static_cast<const Allocation*>(out.storage), VkDeviceSize(out.offset) * 4,
                      VkDeviceSize(span), {av, bv, cv ? cv : av}, uint32_t((m + 15) / 16),
                      uint32_t((n + 255) / 256), uint32_t(batch));
  return true;
}

bool is_zero(const sdk::Scalar& s) {
  return s.is_floating() ? s.to_double() == 0.0 : s.to_int() == 0;
}

void product(VulkanBackend& be, const plexus_kernel_call& call, const plexus_tensor& a,
             const plexus_tensor& b, const plexus_tensor& out, const plexus_tensor* self,
             const sdk::Scalar& alpha, const sdk::Scalar& beta) {
  int64_t batch = out.ndim == 3 ? out.sizes[0] : 1;
  // alpha 0 drops the product, NaN and inf in it included: no terms to add.
  int64_t m = out.sizes[out.ndim - 2], n = out.sizes[out.ndim - 1],
          k = is_zero(alpha) ? 0 : a.sizes[a.ndim - 1];
  if (batch * m * n == 0) return;
  if (batch > 65535 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "batch {} over 65535", batch);
  const plexus_tensor* c = self && !is_zero(beta) ? self : nullptr;
  if (product_packed(be.device(call.device_index), call.stream, batch, m, n, k, a, b, out, c, alpha,
                     beta))
    return;
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
