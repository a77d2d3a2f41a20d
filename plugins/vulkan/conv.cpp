// conv2d: float32 convolutions with one group whose output planes hold a
// multiple of 4 pixels and whose C * KH * KW is a multiple of 4 take the
// packed path, im2col (shaders/conv_im2col.comp) into a scratch buffer then one
// batched sgemm (shaders/matmul_packed.comp) with the bias as its c; everything else
// is the direct convolution, an invocation per output element
// (shaders/conv.comp), correct for every stride, padding, dilation and
// group count but slow.
#include <algorithm>
#include <climits>
#include <vector>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

struct ConvPush {
  uint64_t meta;
  uint64_t x, w, b, y;
  uint32_t n;
  int32_t has_bias;
};

// Mirrors `Push` in shaders/conv_im2col.comp.
struct Im2colPush {
  uint64_t first;
  int32_t C, H, W, OH, OW, KH, KW;
  int32_t xs[4];
  int32_t stride[2], pad[2], dil[2];
};
static_assert(sizeof(Im2colPush) == 80);  // 76 bytes and tail padding

// The packed path (see the top of the file); false, recording nothing, when
// it does not apply. Images are done in chunks whose columns fit one binding.
bool conv2d_packed(Device& dev, void* stream, const plexus_tensor& x, const plexus_tensor& w,
                   const plexus_tensor* bias, const plexus_tensor& y, sdk::Span<int64_t> stride,
                   sdk::Span<int64_t> padding, sdk::Span<int64_t> dilation, int64_t groups) {
  const int64_t N = x.sizes[0], C = x.sizes[1], OC = y.sizes[1], OH = y.sizes[2], OW = y.sizes[3];
  const int64_t KH = w.sizes[2], KW = w.sizes[3], K = C * KH * KW, P = OH * OW;
  if (x.dtype != PLEXUS_DTYPE_F32 || groups != 1 || !dev.info().subgroup_shuffle8 || K % 4 ||
      P % 4 || !x.storage || !w.storage || !y.storage || !is_contiguous(w) || !is_contiguous(y) ||
      block_offset(y) % 16 != 0 || N * C > 65535 || KH * KW > 65535 || OC > int64_t{65535} * 16 ||
      (P + 255) / 256 > 65535 || K * P > INT32_MAX)
    return false;
  for (const plexus_tensor* t : {&x, &w, &y})
    for (int d = 0; d < 4; ++d)
      if (t->strides[d] > INT32_MAX) return false;
  VkBufferView xv = dev.texel_view(static_cast<const Allocation*>(x.storage), false), wv,
               bv = VK_NULL_HANDLE;
  uint64_t w0 = 0;
  if (!xv || !texel_source(dev, w, wv, w0)) return false;
  if (bias && !(bv = dev.texel_view(static_cast<const Allocation*>(bias->storage), false)))
    return false;
  // Images per chunk: its columns and its part of y (contiguous) each fit one binding.
  const int64_t image_bytes = K * P * 4, range = int64_t(dev.info().max_storage_range);
  const int64_t per = std::min({N, range / image_bytes, range / (OC * P * 4)});
  if (per < 1) return false;
  Allocation* col = dev.allocate(size_t(per * image_bytes));
  VkBufferView colv = dev.texel_view(col);
  if (!colv) {
    dev.deallocate(col);
    return false;
  }
  try {
    for (int64_t n0 = 0; n0 < N; n0 += per) {
      const int64_t images = std::min(per, N - n0);
      Im2colPush ip{};
      ip.first = block_offset(x) / 4 + uint64_t(n0 * x.strides[0]);
      ip.C = int32_t(C);
      ip.H = int32_t(x.sizes[2]);
      ip.W = int32_t(x.sizes[3]);
      ip.OH = int32_t(OH);
      ip.OW = int32_t(OW);
      ip.KH = int32_t(KH);
      ip.KW = int32_t(KW);
      for (int d = 0; d < 4; ++d) ip.xs[d] = int32_t(x.strides[d]);
      for (int i = 0; i < 2; ++i) {
        ip.stride[i] = int32_t(stride[i]);
        ip.pad[i] = int32_t(padding[i]);
        ip.dil[i] = int32_t(dilation[i]);
      }
      dev.dispatch_packed(stream, "conv_im2col", {}, &ip, sizeof ip, col, 0,
                          VkDeviceSize(images * image_bytes), {xv}, uint32_t((P / 4 + 63) / 64),
                          uint32_t(KH * KW), uint32_t(images * C));
      // y[n] = w [OC, K] @ col[n] [K, P] (+ bias[oc] along each row).
      SgemmPush p{};
      p.a0 = w0;
      p.b0 = col->offset / 16;
      p.M = uint32_t(OC);
      p.N4 = uint32_t(P / 4);
      p.K4 = uint32_t(K / 4);
      p.as = uint32_t(K / 4);
      p.ab = 0;
      p.bs = uint32_t(P / 4);
      p.bb = uint32_t(K * P / 4);
      p.os = uint32_t(P / 4);
      p.ob = uint32_t(y.strides[0] / 4);
      p.alpha = 1.0f;
      p.beta = 1.0f;
      if (bias) {
        p.use_c = 1;
        p.c0 = block_offset(*bias) / 4;
        p.cs[0] = 0;
        p.cs[1] = int32_t(bias->strides[0]);
        p.cs[2] = 0;
      }
      const int64_t span = images * OC * P * 4;  // y is contiguous
      dev.dispatch_packed(stream, "matmul_packed", {}, &p, sizeof p,
                          static_cast<const Allocation*>(y.storage),
                          VkDeviceSize(y.offset + n0 * y.strides[0]) * 4, VkDeviceSize(span),
                          {wv, colv, bv ? bv : wv}, uint32_t((OC + 15) / 16),
                          uint32_t((P + 255) / 256), uint32_t(images));
    }
  } catch (...) {
    dev.deallocate(col);
    throw;
  }
  dev.deallocate(col);
  return true;
}

// conv2d.out(input, weight, bias, stride, padding, dilation, groups, *, out)
void conv2d_out(VulkanBackend& be, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &x = a.tensor(0), &w = a.tensor(1), &y = a.tensor(7);
  const plexus_tensor* bias = a.optional_tensor(2);
  auto stride = a.int_list(3), padding = a.int_list(4), dilation = a.int_list(5);
  int64_t groups = a.integer(6);
  if (x.ndim != 4 || w.ndim != 4 || y.ndim != 4 || stride.size() != 2 || padding.size() != 2 ||
      dilation.size() != 2 || groups < 1)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "conv2d: expected 4-D input, weight and out, two strides, paddings and "
              "dilations, and groups >= 1");
  int64_t n = numel(y);
  if (n == 0) return;
  if (conv2d_packed(be.device(call.device_index), call.stream, x, w, bias, y, stride, padding,
                    dilation, groups))
    return;
  std::vector<int32_t> meta{int32_t(x.sizes[1]), int32_t(x.sizes[2]), int32_t(x.sizes[3]),
                            int32_t(y.sizes[1]), int32_t(y.sizes[2]), int32_t(y.sizes[3]),
                            int32_t(w.sizes[2]), int32_t(w.sizes[3]), int32_t(groups)};
  for (const plexus_tensor* t : {&x, &w, &y})
    for (int d = 0; d < 4; ++d) meta.push_back(int32_t(t->strides[d]));
  meta.push_back(bias ? int32_t(bias->strides[0]) : 0);
  for (auto* v : {&stride, &padding, &dilation})
    for (int i = 0; i < 2; ++i) meta.push_back(int32_t((*v)[i]));
  ConvPush p{};
  p.x = address_of(x);
  p.w = address_of(w);
  p.b = bias ? address_of(*bias) : 0;
  p.y = address_of(y);
  p.n = uint32_t(n);
  p.has_bias = bias != nullptr;
  be.device(call.device_index)
      .dispatch(call.stream, module_name("conv", x.dtype).c_str(), {}, &p, sizeof p, meta.data(),
                meta.size(), uint32_t(std::min<int64_t>((n + 255) / 256, 4096)));
}

}  // namespace

void register_conv(VulkanBackend& b) {
  b.register_kernel<&conv2d_out>("conv2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
