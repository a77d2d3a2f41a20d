// The rows runner of softmax.cpp and layer_norm.cpp: records their row
// shaders (shaders/rows.glsl's frame), in the packed form when it applies.
#include "rows.h"

#include <algorithm>
#include <string>

#include "launch.h"

namespace plexus::vulkan {
namespace {

// Mirrors `Push` in shaders/rows.glsl.
struct RowPush {
  uint64_t meta;
  uint64_t x, y, w, b;
  uint32_t rows, len;
  double eps;
  int32_t has_w, has_b;
};
static_assert(sizeof(RowPush) == 64);

// Mirrors `Push` of the PACKED form of shaders/rows.glsl.
struct RowPackedPush {
  uint64_t x, w, b;
  uint32_t rows, len, xs, ys;
  double eps;
  int32_t has_w, has_b;
};
static_assert(sizeof(RowPackedPush) == 56);

// The packed form of the row shaders (one invocation per row, 16-byte texels):
// float32, x and y contiguous with the row the trailing dims, rows of a
// multiple of 4 elements, every tensor starting on 16 bytes, and at least 64
// rows (fewer leave most of the device idle; the workgroup-per-row form
// suits them better). Returns false, recording nothing, when it does not apply.
bool run_rows_packed(VulkanBackend& be, const plexus_kernel_call& call, const char* family,
                     int32_t op, const plexus_tensor& x, const plexus_tensor& y,
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
  const std::string module = module_name((std::string(family) + "_packed").c_str(), x.dtype);
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

}  // namespace

void run_rows(VulkanBackend& be, const plexus_kernel_call& call, const char* family, int32_t op,
              const plexus_tensor& x, const plexus_tensor& y, const std::vector<bool>& in_row,
              const plexus_tensor* w, const plexus_tensor* b, double eps) {
  if (numel(x) == 0) return;
  if (run_rows_packed(be, call, family, op, x, y, in_row, w, b, eps)) return;
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
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "more than 2^31 - 1 elements");
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
      .dispatch(call.stream, module_name(family, x.dtype).c_str(), {op, rs.size() == 1 ? 1 : 0}, &p,
                sizeof p, meta.data(), meta.size(), uint32_t(std::min<int64_t>(rows, 65535)));
}

}  // namespace plexus::vulkan
