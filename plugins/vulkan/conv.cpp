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

// One convolution on the packed path: its tensors, sizes and texel views.
struct PackedConv {
  const plexus_tensor &x, &w, &y;
  const plexus_tensor* bias;
  int64_t N, C, OC, OH, OW, KH, KW;
  int64_t K, P;  // rows (C * KH * KW) and columns (OH * OW) of one image's im2col
  VkBufferView xv = VK_NULL_HANDLE, wv = VK_NULL_HANDLE, bv = VK_NULL_HANDLE;
  uint64_t w0 = 0;  // w's first texel
  PackedConv(const plexus_tensor& x_, const plexus_tensor& w_, const plexus_tensor* bias_,
             const plexus_tensor& y_)
      : x(x_),
        w(w_),
        y(y_),
        bias(bias_),
        N(x.sizes[0]),
        C(x.sizes[1]),
        OC(y.sizes[1]),
        OH(y.sizes[2]),
        OW(y.sizes[3]),
        KH(w.sizes[2]),
        KW(w.sizes[3]),
        K(C * KH * KW),
        P(OH * OW) {}
};

// Whether the packed path takes c (see the top of the file); fills c's texel
// views when it does.
bool packed_applies(Device& dev, PackedConv& c, int64_t groups) {
  const plexus_tensor &x = c.x, &w = c.w, &y = c.y;
  if (x.dtype != PLEXUS_DTYPE_F32 || groups != 1 || !dev.info().subgroup_shuffle8 || c.K % 4 ||
      c.P % 4 || !x.storage || !w.storage || !y.storage || !is_contiguous(w) || !is_contiguous(y) ||
      block_offset(y) % 16 != 0 || c.N * c.C > 65535 || c.KH * c.KW > 65535 ||
      c.OC > int64_t{65535} * 16 || (c.P + 255) / 256 > 65535 || c.K * c.P > INT32_MAX)
    return false;
  for (const plexus_tensor* t : {&x, &w, &y})
    for (int d = 0; d < 4; ++d)
      if (t->strides[d] > INT32_MAX) return false;
  c.xv = dev.texel_view(static_cast<const Allocation*>(x.storage), false);
  if (!c.xv || !texel_source(dev, w, c.wv, c.w0)) return false;
  if (c.bias && !(c.bv = dev.texel_view(static_cast<const Allocation*>(c.bias->storage), false)))
    return false;
  return true;
}

// Records im2col of images [n0, n0 + images) of x into col, from its start.
void record_im2col(Device& dev, void* stream, const PackedConv& c, const Allocation* col,
                   int64_t n0, int64_t images, sdk::Span<int64_t> stride,
                   sdk::Span<int64_t> padding, sdk::Span<int64_t> dilation) {
  Im2colPush ip{};
  ip.first = block_offset(c.x) / 4 + uint64_t(n0 * c.x.strides[0]);
  ip.C = int32_t(c.C);
  ip.H = int32_t(c.x.sizes[2]);
  ip.W = int32_t(c.x.sizes[3]);
  ip.OH = int32_t(c.OH);
  ip.OW = int32_t(c.OW);
  ip.KH = int32_t(c.KH);
  ip.KW = int32_t(c.KW);
  for (int d = 0; d < 4; ++d) ip.xs[d] = int32_t(c.x.strides[d]);
  for (int i = 0; i < 2; ++i) {
    ip.stride[i] = int32_t(stride[i]);
    ip.pad[i] = int32_t(padding[i]);
    ip.dil[i] = int32_t(dilation[i]);
  }
  dev.dispatch_packed(stream, "conv_im2col", {}, &ip, sizeof ip, col, 0,
                      VkDeviceSize(images * c.K * c.P * 4), {c.xv}, uint32_t((c.P / 4 + 63) / 64),
                      uint32_t(c.KH * c.KW), uint32_t(images * c.C));
}

// Records y[n0 + i] = w [OC, K] @ col[i] [K, P] (+ bias[oc] along each row)
// for the `images` images whose columns col (texel view colv) holds.
void record_product(Device& dev, void* stream, const PackedConv& c, const Allocation* col,
                    VkBufferView colv, int64_t n0, int64_t images) {
  const plexus_tensor& y = c.y;
  SgemmPush p{};
  p.a0 = c.w0;
  p.b0 = col->offset / 16;
  p.M = uint32_t(c.OC);
  p.N4 = uint32_t(c.P / 4);
  p.K4 = uint32_t(c.K / 4);
  p.as = uint32_t(c.K / 4);
  p.ab = 0;
  p.bs = uint32_t(c.P / 4);
  p.bb = uint32_t(c.K * c.P / 4);
  p.os = uint32_t(c.P / 4);
  p.ob = uint32_t(y.strides[0] / 4);
  p.alpha = 1.0f;
  p.beta = 1.0f;
  if (c.bias) {
    p.use_c = 1;
    p.c0 = block_offset(*c.bias) / 4;
    p.cs[0] = 0;
    p.cs[1] = int32_t(c.bias->strides[0]);
    p.cs[2] = 0;
  }
  const int64_t span = images * c.OC * c.P * 4;  // y is contiguous
  dev.dispatch_packed(stream, "matmul_packed", {}, &p, sizeof p,
                      static_cast<const Allocation*>(y.storage),
                      VkDeviceSize(y.offset + n0 * y.strides[0]) * 4, VkDeviceSize(span),
                      {c.wv, colv, c.bv ? c.bv : c.wv}, uint32_t((c.OC + 15) / 16),
                      uint32_t((c.P + 255) / 256), uint32_t(images));
}

// The packed path (see the top of the file); false, recording nothing, when
// it does not apply. Images are done in chunks whose columns fit one binding.
bool conv2d_packed(Device& dev, void* stream, const plexus_tensor& x, const plexus_tensor& w,
                   const plexus_tensor* bias, const plexus_tensor& y, sdk::Span<int64_t> stride,
                   sdk::Span<int64_t> padding, sdk::Span<int64_t> dilation, int64_t groups) {
  PackedConv c(x, w, bias, y);
  if (!packed_applies(dev, c, groups)) return false;
  // Images per chunk: its columns and its part of y (contiguous) each fit one binding.
  const int64_t image_bytes = c.K * c.P * 4, range = int64_t(dev.info().max_storage_range);
  const int64_t per = std::min({c.N, range / image_bytes, range / (c.OC * c.P * 4)});
  if (per < 1) return false;
  Allocation* col = dev.allocate(size_t(per * image_bytes));
  VkBufferView colv = dev.texel_view(col);
  if (!colv) {
    dev.deallocate(col);
    return false;
  }
  try {
    for (int64_t n0 = 0; n0 < c.N; n0 += per) {
      const int64_t images = std::min(per, c.N - n0);
      record_im2col(dev, stream, c, col, n0, images, stride, padding, dilation);
      record_product(dev, stream, c, col, colv, n0, images);
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
