// Elementwise launches (dim collapsing, the packed path and its tail) and the
// helpers every kernel file uses: addresses, module names, scalar encoding.
#include "launch.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "shaders.h"

namespace plexus::vulkan {
namespace {

// The packed module of `module` ("binary.f32" -> "binary_packed.f32"), or "".
std::string packed_module(const char* module) {
  std::string m(module);
  size_t dot = m.find('.');
  if (dot == std::string::npos) return "";
  m.insert(dot, "_packed");
  return find_spirv(m.c_str()) ? m : "";
}

// The period of an input of the elementwise op writing n elements: n when t
// is contiguous; P when t repeats one contiguous block of its trailing P
// elements along leading dims of stride 0 (a row broadcast, e.g. a bias);
// 0 otherwise.
int64_t period_of(const plexus_tensor& t, int64_t n) {
  int64_t expect = 1;  // the suffix product of the trailing (contiguous) dims
  int32_t d = t.ndim - 1;
  for (; d >= 0 && (t.sizes[d] == 1 || t.strides[d] == expect); --d) expect *= t.sizes[d];
  for (; d >= 0; --d)
    if (t.sizes[d] != 1 && t.strides[d] != 0) return 0;
  return expect == 0 ? 0 : (n % expect == 0 ? expect : 0);
}

// The packed path: float32 tensors (out first, then one or two inputs), out
// contiguous with n elements, each input contiguous or a row broadcast whose
// row is a multiple of 4 elements, each starting on a 16-byte boundary.
// Records the n / 4 * 4 leading elements and returns how many it covered (0:
// the path does not apply, nothing was recorded).
int64_t launch_packed(Device& dev, void* stream, const char* module,
                      std::initializer_list<int32_t> spec,
                      std::initializer_list<const plexus_tensor*> tensors, ElementwisePush push,
                      int64_t n) {
  // The packed shaders take the caller's constants 0 and 1 and own constant 2.
  if (!dev.info().packed || n < 4 || tensors.size() < 2 || tensors.size() > 3 || spec.size() > 2)
    return 0;
  for (const plexus_tensor* t : tensors)
    if (t->dtype != PLEXUS_DTYPE_F32 || !t->storage || block_offset(*t) % 16 != 0) return 0;
  const plexus_tensor& out = **tensors.begin();
  if (!is_contiguous(out)) return 0;
  std::string packed = packed_module(module);
  if (packed.empty()) return 0;
  // One dispatch per chunk, which the storage-buffer binding can span.
  const int64_t chunk = int64_t(
      std::min<VkDeviceSize>(dev.info().max_storage_range, VkDeviceSize{64} << 20) / 16 * 4);
  VkBufferView views[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  uint64_t first[2] = {0, 0};  // each input's first texel
  int32_t periodic = 0;        // bit k: input k + 1 repeats every push.st[k + 1] quads
  int k = 0;
  for (auto it = tensors.begin() + 1; it != tensors.end(); ++it, ++k) {
    const int64_t period = period_of(**it, n);
    if (period == 0) return 0;
    if (period != n) {
      // Every chunk starts on a period, so a chunk's quad q reads quad q % period.
      if (period % 4 != 0 || (n > chunk && chunk % period != 0)) return 0;
      periodic |= 1 << k;
      push.st[k + 1] = int32_t(period / 4);
    }
    if (!texel_source(dev, **it, views[k], first[k])) return 0;
  }
  const int32_t spec0 = spec.size() > 0 ? spec.begin()[0] : 0;
  const int32_t spec1 = spec.size() > 1 ? spec.begin()[1] : 0;
  const int64_t covered = n / 4 * 4;
  const auto* out_alloc = static_cast<const Allocation*>(out.storage);
  const VkDeviceSize out_first = VkDeviceSize(out.offset) * 4;
  for (int64_t e0 = 0; e0 < covered; e0 += chunk) {
    int64_t m = std::min(chunk, covered - e0);
    push.t[1] = first[0] + ((periodic & 1) ? 0 : uint64_t(e0 / 4));
    push.t[2] = first[1] + ((periodic & 2) ? 0 : uint64_t(e0 / 4));
    push.n = uint32_t(m);
    // 1024 invocations x 4 quads of 4 elements per workgroup (shaders/elementwise.glsl).
    uint32_t groups = uint32_t((m / 4 + 4095) / 4096);
    dev.dispatch_packed(stream, packed.c_str(), {spec0, spec1, periodic}, &push, sizeof push,
                        out_alloc, out_first + VkDeviceSize(e0) * 4, VkDeviceSize(m) * 4,
                        {views[0], views[1]}, groups);
  }
  return covered;
}

// Records the elements from `done` on (fewer than 4, after the packed path)
// the general way, as 1-D views of each tensor's tail.
void launch_tail(Device& dev, void* stream, const char* module, std::initializer_list<int32_t> spec,
                 std::initializer_list<const plexus_tensor*> tensors, ElementwisePush push,
                 int64_t done) {
  const int64_t tail = numel(**tensors.begin()) - done, one = 1;
  std::vector<plexus_tensor> rest;
  for (const plexus_tensor* t : tensors) {
    plexus_tensor r = *t;
    r.offset += done;
    r.sizes = &tail;
    r.strides = &one;
    r.ndim = 1;
    rest.push_back(r);
  }
  const plexus_tensor* p[3] = {&rest[0], &rest[1], rest.size() > 2 ? &rest[2] : nullptr};
  if (rest.size() == 2)
    launch_elementwise(dev, stream, module, spec, {p[0], p[1]}, push);
  else
    launch_elementwise(dev, stream, module, spec, {p[0], p[1], p[2]}, push);
}

// out's dims collapsed (plexus/sdk/layout.hpp) over every tensor's strides;
// operands past the tensors given have stride 0, which merges everywhere.
sdk::CollapsedDims<4> collapse(const char* module, const plexus_tensor& out,
                               std::initializer_list<const plexus_tensor*> tensors) {
  const std::vector<int64_t> zeros(size_t(out.ndim), 0);
  std::array<const int64_t*, 4> strides{zeros.data(), zeros.data(), zeros.data(), zeros.data()};
  size_t k = 0;
  for (const plexus_tensor* t : tensors) strides[k++] = t->strides;
  sdk::CollapsedDims<4> c;
  if (!sdk::collapse_dims(out.ndim, out.sizes, strides, c))
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: {} dims (at most {})", module, out.ndim,
              sdk::kMaxIterDims);
  return c;
}

}  // namespace

VkDeviceSize block_offset(const plexus_tensor& t) {
  const auto* a = static_cast<const Allocation*>(t.storage);
  return a->offset + VkDeviceSize(t.offset) * sdk::dtype_size(t.dtype);
}

bool is_contiguous(const plexus_tensor& t) {
  int64_t expect = 1;  // strides are the suffix products of the sizes
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

bool texel_source(Device& dev, const plexus_tensor& t, VkBufferView& view, uint64_t& first) {
  if (!dev.info().packed || t.dtype != PLEXUS_DTYPE_F32 || !t.storage || block_offset(t) % 16 != 0)
    return false;
  view = dev.texel_view(static_cast<const Allocation*>(t.storage));
  first = block_offset(t) / 16;
  return view != VK_NULL_HANDLE;
}

int64_t trailing_extent(const plexus_tensor& t, const std::vector<bool>& in_row, bool& trailing) {
  int64_t n = 1;
  bool seen_kept = false;
  trailing = true;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (in_row[size_t(d)]) {
      trailing = trailing && !seen_kept;
      n *= t.sizes[d];
    } else {
      seen_kept = seen_kept || t.sizes[d] != 1;
    }
  }
  return n;
}

plexus_tensor read_back(Device& dev, void* stream, const plexus_tensor& t,
                        std::vector<uint8_t>& host) {
  plexus_tensor view = t;
  view.offset = 0;
  int64_t last = 0;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.sizes[d] == 0) {
      host.clear();
      return view;
    }
    last += (t.sizes[d] - 1) * t.strides[d];
  }
  const size_t es = sdk::dtype_size(t.dtype);
  host.resize(size_t(last + 1) * es);
  dev.copy_to_host(stream, host.data(), static_cast<Allocation*>(t.storage), size_t(t.offset) * es,
                   host.size());
  return view;
}

uint64_t address_of(const plexus_tensor& t) {
  const auto* a = static_cast<const Allocation*>(t.storage);
  return a ? a->address + uint64_t(t.offset) * sdk::dtype_size(t.dtype) : 0;
}

int64_t numel(const plexus_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

const char* shader_dtype(plexus_dtype d) {
  static const char* const names[PLEXUS_NUM_DTYPES] = {"bool", "u8",  "i8",   "i16", "i32",
                                                       "i64",  "f16", "bf16", "f32", "f64"};
  return d >= 0 && d < PLEXUS_NUM_DTYPES ? names[d] : "invalid";
}

std::string module_name(const char* family, plexus_dtype d) {
  return std::string(family) + "." + shader_dtype(d);
}

uint64_t scalar_bits(const sdk::Scalar& s, plexus_dtype d) {
  uint64_t bits = 0;
  if (d == PLEXUS_DTYPE_F16 || d == PLEXUS_DTYPE_BF16 || d == PLEXUS_DTYPE_F32) {
    float f = s.to<float>();
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    bits = u;
  } else if (d == PLEXUS_DTYPE_F64) {
    double f = s.to<double>();
    std::memcpy(&bits, &f, sizeof bits);
  } else {
    sdk::visit_dtype(d, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) bits = uint64_t(int64_t(s.to<T>()));
    });
  }
  return bits;
}

uint64_t element_scalar_bits(const sdk::Scalar& s, plexus_dtype d) {
  if (d != PLEXUS_DTYPE_F16 && d != PLEXUS_DTYPE_BF16) return scalar_bits(s, d);
  float f = d == PLEXUS_DTYPE_F16 ? float(s.to<sdk::Half>()) : float(s.to<sdk::BFloat16>());
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

uint64_t element_bits(const sdk::Scalar& s, plexus_dtype d) {
  uint64_t bits = 0;
  sdk::visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = s.to<T>();
    std::memcpy(&bits, &v, sizeof v);
  });
  return bits;
}

void launch_elementwise(Device& dev, void* stream, const char* module,
                        std::initializer_list<int32_t> spec,
                        std::initializer_list<const plexus_tensor*> tensors, ElementwisePush push) {
  const plexus_tensor& out = **tensors.begin();
  int64_t n = numel(out);
  if (n == 0) return;
  if (n > INT32_MAX)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: {} elements; at most 2^31 - 1 per kernel", module, n);
  if (int64_t done = launch_packed(dev, stream, module, spec, tensors, push, n); done > 0) {
    if (done < n) launch_tail(dev, stream, module, spec, tensors, push, done);
    return;
  }
  const sdk::CollapsedDims<4> c = collapse(module, out, tensors);
  const int nt = int(tensors.size());
  int k = 0;
  for (const plexus_tensor* t : tensors) push.t[k++] = address_of(*t);
  push.n = uint32_t(n);
  push.ndim = c.ndim;
  std::vector<int32_t> meta;
  if (c.ndim <= 1) {
    for (int j = 0; j < nt; ++j) push.st[j] = c.ndim == 0 ? 0 : int32_t(c.strides[j][0]);
  } else {
    meta.assign(c.sizes, c.sizes + c.ndim);
    for (int j = 0; j < 4; ++j)
      for (int32_t d = 0; d < c.ndim; ++d) meta.push_back(j < nt ? int32_t(c.strides[j][d]) : 0);
  }
  uint32_t groups = uint32_t(std::min<int64_t>((n + 255) / 256, 4096));
  dev.dispatch(stream, module, spec, &push, sizeof push, meta.data(), meta.size(), groups);
}

}  // namespace plexus::vulkan
