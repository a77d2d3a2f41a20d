#include "reference/tensor.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "plexus/half.h"

namespace plexus::ref {

int64_t numel_of(const Sizes& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

Sizes contiguous_strides(const Sizes& sizes) {
  Sizes st(sizes.size());
  int64_t acc = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = acc;
    acc *= sizes[d];
  }
  return st;
}

std::string sizes_str(const Sizes& sizes) {
  std::string s = "[";
  for (size_t d = 0; d < sizes.size(); ++d) s += (d ? ", " : "") + std::to_string(sizes[d]);
  return s + "]";
}

Tensor::Tensor(DType dt, Sizes sz) : dtype(dt), sizes(std::move(sz)) {
  size_t n = static_cast<size_t>(numel_of(sizes));
  f.assign(n, 0.0);
  if (!is_floating(dtype)) i.assign(n, 0);
}

void Tensor::set_int(int64_t k, int64_t v) {
  int64_t w = wrap_to(dtype, v);
  i[static_cast<size_t>(k)] = w;
  f[static_cast<size_t>(k)] = static_cast<double>(w);
}

int64_t wrap_to(DType dtype, int64_t v) {
  switch (dtype) {
    case DType::Bool: return v != 0;
    case DType::U8: return static_cast<uint8_t>(v);
    case DType::I8: return static_cast<int8_t>(v);
    case DType::I16: return static_cast<int16_t>(v);
    case DType::I32: return static_cast<int32_t>(v);
    default: return v;
  }
}

double round_to(DType dtype, double v) {
  switch (dtype) {
    case DType::F16: return half_bits_to_float(double_to_half_bits(v));
    case DType::BF16: return bfloat16_bits_to_float(double_to_bfloat16_bits(v));
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

void round_to_dtype(Tensor& t) {
  if (t.integral()) return;
  for (double& v : t.f) v = round_to(t.dtype, v);
}

namespace {
// Truncation of a double to an integral dtype's range, as plexus converts.
int64_t truncate_to(DType to, double v) {
  if (std::isnan(v)) return 0;
  double lo, hi;
  switch (to) {
    case DType::U8: lo = 0, hi = 255; break;
    case DType::I8: lo = -128, hi = 127; break;
    case DType::I16: lo = -32768, hi = 32767; break;
    case DType::I32: lo = -2147483648.0, hi = 2147483647.0; break;
    default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
  }
  if (v <= lo) return static_cast<int64_t>(lo);
  if (v >= hi) return to == DType::I64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi);
  return static_cast<int64_t>(std::trunc(v));
}
}  // namespace

Tensor convert(const Tensor& t, DType to) {
  Tensor out(to, t.sizes);
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (to == DType::Bool) {
      out.set_int(k, t.integral() ? t.at_int(k) != 0 : t.at(k) != 0.0);
    } else if (is_floating(to) && t.integral()) {
      // plexus converts integers to the 16-bit floats through float32, and
      // int64 to float32 in one rounding (never through double).
      int64_t v = t.at_int(k);
      out.set_float(k, to == DType::F64 ? static_cast<double>(v)
                                        : round_to(to, static_cast<double>(static_cast<float>(v))));
    } else if (is_floating(to)) {
      out.set_float(k, round_to(to, t.at(k)));
    } else if (t.integral()) {
      out.set_int(k, t.at_int(k));
    } else {
      out.set_int(k, truncate_to(to, t.at(k)));
    }
  }
  return out;
}

int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

Sizes broadcast_shapes(const Sizes& a, const Sizes& b) {
  size_t n = std::max(a.size(), b.size());
  Sizes out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      throw std::invalid_argument("shapes " + sizes_str(a) + " and " + sizes_str(b) +
                                  " do not broadcast");
    out[k] = x == 1 ? y : x;
  }
  return out;
}

int64_t broadcast_index(const Sizes& sizes, const Sizes& out_sizes, const Sizes& index) {
  size_t lead = out_sizes.size() - sizes.size();
  int64_t flat = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t i = sizes[d] == 1 ? 0 : index[d + lead];
    flat = flat * sizes[d] + i;
  }
  return flat;
}

void for_each_index(const Sizes& sizes, const std::function<void(const Sizes&, int64_t)>& f) {
  int64_t n = numel_of(sizes);
  Sizes idx(sizes.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(idx, flat);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (dim < -n || dim >= n)
    throw std::invalid_argument("dim " + std::to_string(dim) + " out of range for " +
                                std::to_string(ndim) + " dims");
  return dim < 0 ? dim + n : dim;
}

Tensor map(const std::vector<const Tensor*>& inputs, DType out_dtype, const FloatFn& ff,
           const IntFn& fi) {
  Sizes shape;
  for (const Tensor* t : inputs) shape = broadcast_shapes(shape, t->sizes);
  Tensor out(out_dtype, shape);
  bool floating = !inputs.empty() && !inputs[0]->integral();
  if (floating && !ff) throw std::invalid_argument("reference: op has no floating definition");
  if (!floating && !fi) throw std::invalid_argument("reference: op has no integral definition");
  std::vector<double> fv(inputs.size());
  std::vector<int64_t> iv(inputs.size());
  for_each_index(shape, [&](const Sizes& idx, int64_t flat) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      int64_t src = broadcast_index(inputs[k]->sizes, shape, idx);
      if (floating) fv[k] = inputs[k]->at(src);
      else iv[k] = inputs[k]->at_int(src);
    }
    if (floating) {
      double r = ff(fv);
      if (is_floating(out_dtype)) out.set_float(flat, r);
      else out.set_int(flat, static_cast<int64_t>(r));
    } else {
      int64_t r = fi(iv);
      if (is_floating(out_dtype)) out.set_float(flat, static_cast<double>(r));
      else out.set_int(flat, r);
    }
  });
  return out;
}

Tensor map1(const Tensor& a, const std::function<double(double)>& ff,
            const std::function<int64_t(int64_t)>& fi) {
  return map({&a}, a.dtype, ff ? FloatFn([&](const std::vector<double>& v) { return ff(v[0]); }) : FloatFn(),
             fi ? IntFn([&](const std::vector<int64_t>& v) { return fi(v[0]); }) : IntFn());
}

Tensor map2(const Tensor& a, const Tensor& b, const std::function<double(double, double)>& ff,
            const std::function<int64_t(int64_t, int64_t)>& fi) {
  return map({&a, &b}, a.dtype,
             ff ? FloatFn([&](const std::vector<double>& v) { return ff(v[0], v[1]); }) : FloatFn(),
             fi ? IntFn([&](const std::vector<int64_t>& v) { return fi(v[0], v[1]); }) : IntFn());
}

}  // namespace plexus::ref
