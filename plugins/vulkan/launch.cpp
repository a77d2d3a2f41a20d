#include "launch.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace plexus::vulkan {

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
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string("vulkan ") + module + ": " + std::to_string(n) +
                                            " elements; at most 2^31 - 1 per kernel");
  // Collapse: drop size-1 dims, merge dim d into d+1 when every tensor is
  // contiguous across them. Kept dims are listed outermost first.
  const int nt = int(tensors.size());
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides[4];
  for (int32_t d = 0; d < out.ndim; ++d) {
    if (out.sizes[d] == 1) continue;
    bool merge = !sizes.empty();
    int k = 0;
    for (const plexus_tensor* t : tensors) {
      if (merge && strides[k].back() != t->strides[d] * out.sizes[d]) merge = false;
      ++k;
    }
    k = 0;
    if (merge) {
      sizes.back() *= out.sizes[d];
      for (const plexus_tensor* t : tensors) strides[k++].back() = t->strides[d];
    } else {
      sizes.push_back(out.sizes[d]);
      for (const plexus_tensor* t : tensors) strides[k++].push_back(t->strides[d]);
    }
  }
  int k = 0;
  for (const plexus_tensor* t : tensors) push.t[k++] = address_of(*t);
  push.n = uint32_t(n);
  push.ndim = int32_t(sizes.size());
  std::vector<int32_t> meta;
  if (sizes.size() <= 1) {
    for (int j = 0; j < nt; ++j) push.st[j] = sizes.empty() ? 0 : int32_t(strides[j][0]);
  } else {
    meta.assign(sizes.begin(), sizes.end());
    for (int j = 0; j < 4; ++j)
      for (size_t d = 0; d < sizes.size(); ++d) meta.push_back(j < nt ? int32_t(strides[j][d]) : 0);
  }
  uint32_t groups = uint32_t(std::min<int64_t>((n + 255) / 256, 4096));
  dev.dispatch(stream, module, spec, &push, sizeof push, meta.data(), meta.size(), groups);
}

}  // namespace plexus::vulkan
