// Neural-network kernels: softmax, log_softmax, layer_norm
// (shaders/rownorm.comp), max_pool2d (shaders/max_pool2d.comp), embedding
// (shaders/embedding.comp).
#include <algorithm>
#include <vector>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

enum RowOp { kSoftmax, kLogSoftmax, kLayerNorm };

// Mirrors `Push` in shaders/rownorm.comp.
struct RowPush {
  uint64_t meta;
  uint64_t x, y, w, b;
  uint32_t rows, len;
  double eps;
  int32_t has_w, has_b;
};
static_assert(sizeof(RowPush) == 64);

// Mirrors `Push` of the PACKED form of shaders/rownorm.comp.
struct RowPackedPush {
  uint64_t x, w, b;
  uint32_t rows, len, xs, ys;
  double eps;
  int32_t has_w, has_b;
};
static_assert(sizeof(RowPackedPush) == 56);

// The packed form of rownorm (one invocation per row, 16-byte texels):
// float32, x and y contiguous with the row the trailing dims, rows of a
// multiple of 4 elements, every tensor starting on 16 bytes, and at least 64
// rows (fewer leave most of the device idle; the workgroup-per-row form
// suits them better). Returns false, recording nothing, when it does not apply.
bool run_rows_packed(VulkanBackend& be, const plexus_kernel_call& call, int op,
                     const plexus_tensor& x, const plexus_tensor& y,
                     const std::vector<bool>& in_row, const plexus_tensor* w,
                     const plexus_tensor* b, double eps) {
  Device& dev = be.device(call.device_index);
  bool trailing;
  const int64_t len = trailing_extent(x, in_row, trailing);
  int64_t rows = len ? numel(x) / len : 0;
  VkBufferView xv, wv = VK_NULL_HANDLE, bv = VK_NULL_HANDLE;
  RowPackedPush p{};
  if (!trailing || len % 4 != 0 || rows < 64 || len > INT32_MAX || !is_contiguous(x) ||
      !is_contiguous(y) || block_offset(y) % 16 != 0 || !texel_source(dev, x, xv, p.x) ||
      (w && (!is_contiguous(*w) || !texel_source(dev, *w, wv, p.w))) ||
      (b && (!is_contiguous(*b) || !texel_source(dev, *b, bv, p.b))))
    return false;
  const VkDeviceSize row_bytes = VkDeviceSize(len) * 4;
  const int64_t per_dispatch =
      std::min<int64_t>(int64_t(dev.info().max_storage_range / row_bytes), int64_t{65535} * 64);
  if (per_dispatch < 1) return false;
  p.len = uint32_t(len);
  p.xs = p.ys = uint32_t(len / 4);
  p.eps = eps;
  p.has_w = w != nullptr;
  p.has_b = b != nullptr;
  const uint64_t x0 = p.x;
  const auto* out = static_cast<const Allocation*>(y.storage);
  const std::string module = module_name("rownorm_packed", x.dtype);
  for (int64_t r0 = 0; r0 < rows; r0 += per_dispatch) {
    int64_t n = std::min(per_dispatch, rows - r0);
    p.x = x0 + uint64_t(r0) * p.xs;
    p.rows = uint32_t(n);
    dev.dispatch_packed(call.stream, module.c_str(), {op}, &p, sizeof p, out,
                        VkDeviceSize(y.offset) * 4 + VkDeviceSize(r0) * row_bytes,
                        VkDeviceSize(n) * row_bytes, {xv, wv, bv}, uint32_t((n + 63) / 64));
  }
  return true;
}

// Rows of x: the dims before `first_row_dim` (and, for softmax, after the
// one dim) are kept; the row runs over the others.
void run_rows(VulkanBackend& be, const plexus_kernel_call& call, int op, const plexus_tensor& x,
              const plexus_tensor& y, const std::vector<bool>& in_row, const plexus_tensor* w,
              const plexus_tensor* b, double eps) {
  if (numel(x) == 0) return;
  if (run_rows_packed(be, call, op, x, y, in_row, w, b, eps)) return;
  std::vector<int32_t> ks, kx, ky, rs, rx, ry, rw, rb;
  int64_t rows = 1, len = 1;
  int32_t wd = 0;  // weight/bias dim of the next row dim
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (in_row[size_t(d)]) {
      rs.push_back(int32_t(x.sizes[d]));
      rx.push_back(int32_t(x.strides[d]));
      ry.push_back(int32_t(y.strides[d]));
      rw.push_back(w ? int32_t(w->strides[wd]) : 0);
      rb.push_back(b ? int32_t(b->strides[wd]) : 0);
      ++wd;
      len *= x.sizes[d];
    } else {
      ks.push_back(int32_t(x.sizes[d]));
      kx.push_back(int32_t(x.strides[d]));
      ky.push_back(int32_t(y.strides[d]));
      rows *= x.sizes[d];
    }
  }
  if (rows > INT32_MAX || len > INT32_MAX)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string("vulkan ") + call.op + ": too many elements");
  std::vector<int32_t> meta{int32_t(ks.size()), int32_t(rs.size())};
  for (auto* v : {&ks, &kx, &ky, &rs, &rx, &ry, &rw, &rb})
    meta.insert(meta.end(), v->begin(), v->end());
  RowPush p{};
  p.x = address_of(x);
  p.y = address_of(y);
  p.w = w ? address_of(*w) : 0;
  p.b = b ? address_of(*b) : 0;
  p.rows = uint32_t(rows);
  p.len = uint32_t(len);
  p.eps = eps;
  p.has_w = w != nullptr;
  p.has_b = b != nullptr;
  be.device(call.device_index)
      .dispatch(call.stream, module_name("rownorm", x.dtype).c_str(), {op, rs.size() == 1 ? 1 : 0},
                &p, sizeof p, meta.data(), meta.size(), uint32_t(std::min<int64_t>(rows, 65535)));
}

// softmax.int_out / log_softmax.int_out(self, dim, dtype, *, out)
template <int Op>
void softmax_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  int64_t dim = a.integer(1);
  if (self.dtype != out.dtype)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(call.op) + ": self is " +
                                                 sdk::dtype_name(self.dtype) + ", out " +
                                                 sdk::dtype_name(out.dtype) + " (expected equal)");
  if (self.ndim == 0) {  // a 0-d tensor is one row of one element
    plexus_tensor x = self, y = out;
    static const int64_t one = 1, zero = 0;
    x.ndim = y.ndim = 1;
    x.sizes = y.sizes = &one;
    x.strides = y.strides = &zero;
    run_rows(b, call, Op, x, y, {true}, nullptr, nullptr, 0);
    return;
  }
  if (dim < 0 || dim >= self.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              std::string(call.op) + ": dim " + std::to_string(dim) + " out of range");
  std::vector<bool> in_row(size_t(self.ndim), false);
  in_row[size_t(dim)] = true;
  run_rows(b, call, Op, self, out, in_row, nullptr, nullptr, 0);
}

// layer_norm.out(input, normalized_shape, weight, bias, eps, *, out)
void layer_norm_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& input = a.tensor(0);
  int32_t k = int32_t(a.int_list(1).size());
  const plexus_tensor* weight = a.optional_tensor(2);
  const plexus_tensor* bias = a.optional_tensor(3);
  double eps = a.floating(4);
  const plexus_tensor& out = a.tensor(5);
  if (k < 1 || k > input.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "layer_norm.out: normalized_shape has " +
                                                 std::to_string(k) + " dims for an input of " +
                                                 std::to_string(input.ndim));
  std::vector<bool> in_row(size_t(input.ndim), false);
  for (int32_t d = input.ndim - k; d < input.ndim; ++d) in_row[size_t(d)] = true;
  run_rows(b, call, kLayerNorm, input, out, in_row, weight, bias, eps);
}

// Mirrors `Push` in shaders/max_pool2d.comp.
struct PoolPush {
  uint64_t meta;
  uint64_t x, y;
  int32_t channels, H, W, OH, OW;
  int32_t xs[4], ys[4];
  int32_t k[2], s[2], p[2], d[2];
  uint32_t n;
};

// max_pool2d.out(self, kernel_size, stride, padding, dilation, ceil_mode, *, out)
void max_pool2d_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(6);
  const sdk::Pool2dWindow w = sdk::read_max_pool2d_window(a);
  PoolPush p{};
  for (int i = 0; i < 2; ++i) {
    p.k[i] = int32_t(w.kernel[i]);
    p.s[i] = int32_t(w.stride[i]);
    p.p[i] = int32_t(w.padding[i]);
    p.d[i] = int32_t(w.dilation[i]);
  }
  int64_t n = numel(out);
  if (n == 0) return;
  p.x = address_of(self);
  p.y = address_of(out);
  p.channels = int32_t(self.sizes[1]);
  p.H = int32_t(self.sizes[2]);
  p.W = int32_t(self.sizes[3]);
  p.OH = int32_t(out.sizes[2]);
  p.OW = int32_t(out.sizes[3]);
  for (int d = 0; d < 4; ++d) {
    p.xs[d] = int32_t(self.strides[d]);
    p.ys[d] = int32_t(out.strides[d]);
  }
  p.n = uint32_t(n);
  b.device(call.device_index)
      .dispatch(call.stream, module_name("max_pool2d", self.dtype).c_str(), {}, &p, sizeof p,
                nullptr, 0, uint32_t(std::min<int64_t>((n + 255) / 256, 4096)));
}

// Throws INVALID_ARGUMENT naming the first index outside [0, num).
template <typename I>
void check_indices(const plexus_tensor& view, const void* host_base, int64_t num) {
  int64_t position = 0, bad = -1, value = 0;
  sdk::for_each(sdk::TensorView<const I>(view, host_base), [&](const I& v) {
    if (bad < 0 && (v < 0 || int64_t(v) >= num)) {
      bad = position;
      value = int64_t(v);
    }
    ++position;
  });
  if (bad >= 0)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: index " + std::to_string(value) + " (element " + std::to_string(bad) +
                  " of indices) is out of range for weight with " + std::to_string(num) +
                  " rows (expected 0 <= index < " + std::to_string(num) + ")");
}

// embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out).
// The indices are read back and checked first (a shader cannot report a bad
// one), which waits for the stream's earlier work.
void embedding_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &weight = a.tensor(0), &indices = a.tensor(1), &out = a.tensor(5);
  if (weight.ndim != 2 || out.ndim != indices.ndim + 1)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: expected a 2-D weight and out of indices' dims plus one");
  if (indices.dtype != PLEXUS_DTYPE_I64 && indices.dtype != PLEXUS_DTYPE_I32)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              std::string("embedding: indices must be int32 or int64, got ") +
                  sdk::dtype_name(indices.dtype));
  if (numel(out) == 0) return;
  Device& dev = b.device(call.device_index);
  std::vector<uint8_t> host;
  const plexus_tensor host_view = read_back(dev, call.stream, indices, host);
  if (indices.dtype == PLEXUS_DTYPE_I64)
    check_indices<int64_t>(host_view, host.data(), weight.sizes[0]);
  else
    check_indices<int32_t>(host_view, host.data(), weight.sizes[0]);
  // Views over out's shape: indices (stride 0 along the embedding dim) and
  // the weight's columns (stride 0 along the index dims).
  std::vector<int64_t> is(indices.strides, indices.strides + indices.ndim), ws(size_t(out.ndim), 0);
  is.push_back(0);
  ws.back() = weight.strides[1];
  plexus_tensor iv = indices, wv = weight;
  iv.ndim = wv.ndim = out.ndim;
  iv.sizes = wv.sizes = out.sizes;
  iv.strides = is.data();
  wv.strides = ws.data();
  ElementwisePush push;
  push.s0 = uint64_t(weight.strides[0]);
  launch_elementwise(dev, call.stream, "embedding",
                     {int32_t(sdk::dtype_size(weight.dtype)), indices.dtype == PLEXUS_DTYPE_I64},
                     {&out, &iv, &wv}, push);
}

}  // namespace

void register_nn(VulkanBackend& b) {
  b.register_kernel<&softmax_out<kSoftmax>>("softmax.int_out", sdk::kFloatingDTypes);
  b.register_kernel<&softmax_out<kLogSoftmax>>("log_softmax.int_out", sdk::kFloatingDTypes);
  b.register_kernel<&layer_norm_out>("layer_norm.out", sdk::kFloatingDTypes);
  b.register_kernel<&max_pool2d_out>("max_pool2d.out", sdk::kFloatingDTypes);
  b.register_kernel<&embedding_out>("embedding.out", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
