// conv2d.out. f32 and bf16 run oneDNN's convolution in channels-last (nhwc)
// layout, its fastest here: a channels-last input and output are used as
// they are, others are reordered around it. f16 computes in f32 (this oneDNN
// has no f16 convolution). f64, and any case oneDNN declines, run the direct
// loop in conv_direct below.
#include <algorithm>
#include <array>
#include <optional>

#include "kernels.h"
#include "onednn.h"
#include "parallel.h"

namespace plexus::cpu {
namespace {

using dims = dnnl::memory::dims;

// The sizes and parameters of one convolution, as the host checked them.
struct ConvShape {
  int64_t n, c, h, w;  // input
  int64_t oc, kh, kw;  // weight [oc, c / groups, kh, kw]
  int64_t oh, ow;      // output
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

struct Conv {
  const plexus_tensor& input;
  const plexus_tensor& weight;
  const plexus_tensor* bias;  // nullptr for None
  const plexus_tensor& out;
  ConvShape s;
};

// Element [0, 0, 0, 0] of t, typed (T must be t's element type) or as bytes.
template <typename T>
T* base(const plexus_tensor& t) {
  return static_cast<T*>(t.storage) + t.offset;
}
void* data_of(const plexus_tensor& t) {
  return static_cast<char*>(t.storage) + t.offset * int64_t(sdk::dtype_size(t.dtype));
}

// ---- Direct loop: f64, and whatever oneDNN declines ------------------------

// One output row out[n, o, y, :], accumulated in C over chunks of columns.
template <typename T>
void conv_row(const Conv& cv, int64_t n, int64_t o, int64_t y) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const ConvShape& s = cv.s;
  const int64_t* is = cv.input.strides;
  const int64_t* ws = cv.weight.strides;
  const int64_t* os = cv.out.strides;
  int64_t cg = s.c / s.groups, g = o / (s.oc / s.groups);
  const T* in = base<const T>(cv.input) + n * is[0];
  const T* wt = base<const T>(cv.weight) + o * ws[0];
  T* out = base<T>(cv.out) + n * os[0] + o * os[1] + y * os[2];
  C b = cv.bias ? C(base<const T>(*cv.bias)[o * cv.bias->strides[0]]) : C(0);
  constexpr int64_t kChunk = 256;
  C acc[kChunk];
  for (int64_t x0 = 0; x0 < s.ow; x0 += kChunk) {
    int64_t len = std::min(kChunk, s.ow - x0);
    std::fill(acc, acc + len, b);
    for (int64_t ci = 0; ci < cg; ++ci) {
      const T* in_c = in + (g * cg + ci) * is[1];
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        int64_t iy = y * s.sh - s.ph + ky * s.dh;
        if (iy < 0 || iy >= s.h) continue;
        const T* in_row = in_c + iy * is[2];
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          C wv = C(wt[ci * ws[1] + ky * ws[2] + kx * ws[3]]);
          int64_t off = kx * s.dw - s.pw;  // ix = x * sw + off must lie in [0, w)
          int64_t lo = std::max<int64_t>(x0, off >= 0 ? 0 : (-off + s.sw - 1) / s.sw);
          int64_t hi =
              std::min<int64_t>(x0 + len, s.w - 1 - off < 0 ? 0 : (s.w - 1 - off) / s.sw + 1);
          for (int64_t x = lo; x < hi; ++x) acc[x - x0] += wv * C(in_row[(x * s.sw + off) * is[3]]);
        }
      }
    }
    for (int64_t x = 0; x < len; ++x) out[(x0 + x) * os[3]] = T(acc[x]);
  }
}

template <typename T>
void conv_direct(const Conv& cv) {
  const ConvShape& s = cv.s;
  int64_t rows = s.n * s.oc * s.oh;
  int64_t cost = s.ow * (s.c / s.groups) * s.kh * s.kw + 1;
  parallel_for(rows, cost, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) conv_row<T>(cv, r / (s.oc * s.oh), r / s.oh % s.oc, r % s.oh);
  });
}

// ---- oneDNN: f32, bf16, and f16 through f32 ---------------------------------

// The convolution primitive for a shape, with the layouts it expects.
struct ConvPrimitive {
  dnnl::convolution_forward primitive;
  dnnl::memory::desc src, weights, bias, dst;
};

dims nhwc_strides(int64_t c, int64_t h, int64_t w) {
  return {h * w * c, 1, w * c, c};
}

// nullopt when oneDNN has no implementation for it.
std::optional<ConvPrimitive> conv_primitive(const ConvShape& s, plexus_dtype cd, bool has_bias) {
  onednn::Key key("conv2d");
  for (int64_t v : {int64_t(cd), s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh,
                    s.dw, s.groups, int64_t(has_bias)})
    key.add(v);
  return onednn::cached<std::optional<ConvPrimitive>>(key, [&]() -> std::optional<ConvPrimitive> {
    auto dt = onednn::data_type(cd);
    using tag = dnnl::memory::format_tag;
    dnnl::memory::desc src({s.n, s.c, s.h, s.w}, dt, nhwc_strides(s.c, s.h, s.w));
    dnnl::memory::desc dst({s.n, s.oc, s.oh, s.ow}, dt, nhwc_strides(s.oc, s.oh, s.ow));
    dnnl::memory::desc bias({s.oc}, dt, tag::a);
    dims wdims = s.groups == 1 ? dims{s.oc, s.c, s.kh, s.kw}
                               : dims{s.groups, s.oc / s.groups, s.c / s.groups, s.kh, s.kw};
    dnnl::memory::desc weights(wdims, dt, tag::any);
    dims stride{s.sh, s.sw}, dil{s.dh - 1, s.dw - 1}, pad{s.ph, s.pw};
    // Symmetric padding: oneDNN sizes the output with the same floor division as the host.
    try {
      auto d = has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                          dnnl::algorithm::convolution_direct, src,
                                                          weights, bias, dst, stride, dil, pad, pad)
                        : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                          dnnl::algorithm::convolution_direct, src,
                                                          weights, dst, stride, dil, pad, pad);
      dnnl::convolution_forward::primitive_desc pd(d, onednn::attr(), onednn::engine());
      return ConvPrimitive{dnnl::convolution_forward(pd), pd.src_desc(), pd.weights_desc(), bias,
                           pd.dst_desc()};
    } catch (const dnnl::error&) {
      return std::nullopt;
    }
  });
}

// True when t is dense channels-last: strides (h*w*c, 1, w*c, c) where the size is not 1.
bool is_nhwc(const plexus_tensor& t) {
  dims want = nhwc_strides(t.sizes[1], t.sizes[2], t.sizes[3]);
  for (int d = 0; d < 4; ++d)
    if (t.sizes[d] != 1 && t.strides[d] != want[size_t(d)]) return false;
  return true;
}

// A 4-D tensor's view in (n, h, w, c) order, for convert() to or from nhwc memory.
struct NhwcView {
  int64_t sizes[4], strides[4];
  explicit NhwcView(const plexus_tensor& t) {
    for (int d = 0; d < 4; ++d) {
      int from = d == 0 ? 0 : d == 3 ? 1 : d + 1;
      sizes[d] = t.sizes[from];
      strides[d] = t.strides[from];
    }
  }
  onednn::View view(plexus_dtype dtype, void* data) { return {dtype, data, 4, sizes, strides}; }
};

onednn::View dense_nhwc_view(plexus_dtype dtype, const dnnl::memory& m, const NhwcView& v,
                             int64_t (&strides)[4]) {
  strides[3] = 1, strides[2] = v.sizes[3], strides[1] = v.sizes[2] * v.sizes[3];
  strides[0] = v.sizes[1] * strides[1];
  return {dtype, m.get_data_handle(), 4, v.sizes, strides};
}

// The input as nhwc memory in the compute dtype: the tensor itself, or a copy.
dnnl::memory nhwc_input(const plexus_tensor& t, plexus_dtype cd, const dnnl::memory::desc& want) {
  if (t.dtype == cd && is_nhwc(t)) return onednn::memory(want, data_of(t));
  dnnl::memory m(want, onednn::engine());
  if (t.dtype == cd) {
    dnnl::memory user = onednn::memory(t);
    onednn::execute(onednn::reorder(user.get_desc(), want),
                    {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, m}});
  } else {
    NhwcView v(t);
    int64_t strides[4];
    onednn::convert(v.view(t.dtype, data_of(t)), dense_nhwc_view(cd, m, v, strides));
  }
  return m;
}

// The weights in the layout the primitive wants, in the compute dtype.
dnnl::memory conv_weights(const Conv& cv, plexus_dtype cd, const dnnl::memory::desc& want) {
  const plexus_tensor& t = cv.weight;
  const ConvShape& s = cv.s;
  dims sizes(t.sizes, t.sizes + 4), strides(t.strides, t.strides + 4);
  void* data = data_of(t);
  dnnl::memory staged;  // f16: a dense f32 copy, alive until the reorder below has run
  if (t.dtype != cd) {
    staged = dnnl::memory(onednn::dense_desc(cd, sizes), onednn::engine());
    int64_t dense[4] = {sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1};
    onednn::convert({t.dtype, data, 4, t.sizes, t.strides},
                    {cd, staged.get_data_handle(), 4, t.sizes, dense});
    data = staged.get_data_handle();
    strides.assign(dense, dense + 4);
  }
  dnnl::memory::desc from = onednn::desc(cd, sizes, strides);
  if (s.groups > 1) {  // [oc, c/g, kh, kw] seen as [g, oc/g, c/g, kh, kw]
    int64_t og = s.oc / s.groups;
    from = onednn::desc(cd, {s.groups, og, sizes[1], sizes[2], sizes[3]},
                        {og * strides[0], strides[0], strides[1], strides[2], strides[3]});
  }
  dnnl::memory user = onednn::memory(from, data);
  if (from == want && !staged) return user;
  dnnl::memory m(want, onednn::engine());
  onednn::execute(onednn::reorder(from, want), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, m}});
  return m;
}

// The bias as a dense vector in the compute dtype.
dnnl::memory conv_bias(const plexus_tensor& t, plexus_dtype cd, const dnnl::memory::desc& want) {
  if (t.dtype == cd && (t.strides[0] == 1 || t.sizes[0] == 1))
    return onednn::memory(want, data_of(t));
  dnnl::memory m(want, onednn::engine());
  int64_t one = 1;
  onednn::convert({t.dtype, data_of(t), 1, t.sizes, t.strides},
                  {cd, m.get_data_handle(), 1, t.sizes, &one});
  return m;
}

// True when a bfloat16 tensor holds a NaN or an infinity.
bool has_non_finite_bf16(const plexus_tensor& t) {
  const auto* base = static_cast<const uint16_t*>(data_of(t));
  for (int64_t a = 0; a < t.sizes[0]; ++a)
    for (int64_t b = 0; b < t.sizes[1]; ++b)
      for (int64_t c = 0; c < t.sizes[2]; ++c) {
        const uint16_t* row = base + a * t.strides[0] + b * t.strides[1] + c * t.strides[2];
        for (int64_t d = 0; d < t.sizes[3]; ++d)
          if ((row[d * t.strides[3]] & 0x7f80u) == 0x7f80u) return true;
      }
  return false;
}

// The dtype oneDNN computes in. f16 goes through f32. So does bf16 when the
// input holds a NaN or an infinity: the bf16 kernels multiply inputs in pairs
// and pad the weights with zeros, so a non-finite input next to a window
// (0 * inf, 0 * NaN) would turn an output outside its reach into NaN.
plexus_dtype conv_compute_dtype(const Conv& cv) {
  plexus_dtype dtype = cv.out.dtype;
  if (dtype == PLEXUS_DTYPE_F16) return PLEXUS_DTYPE_F32;
  if (dtype == PLEXUS_DTYPE_BF16 && has_non_finite_bf16(cv.input)) return PLEXUS_DTYPE_F32;
  return dtype;
}

// false when oneDNN declined the shape.
bool conv_onednn(const Conv& cv) {
  plexus_dtype dtype = cv.out.dtype;
  plexus_dtype cd = conv_compute_dtype(cv);
  std::optional<ConvPrimitive> prim = conv_primitive(cv.s, cd, cv.bias != nullptr);
  if (!prim) return false;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, nhwc_input(cv.input, cd, prim->src)},
      {DNNL_ARG_WEIGHTS, conv_weights(cv, cd, prim->weights)}};
  if (cv.bias) args[DNNL_ARG_BIAS] = conv_bias(*cv.bias, cd, prim->bias);
  bool direct = dtype == cd && is_nhwc(cv.out);  // prim->dst is nhwc
  dnnl::memory dst = direct ? onednn::memory(prim->dst, data_of(cv.out))
                            : dnnl::memory(prim->dst, onednn::engine());
  args[DNNL_ARG_DST] = dst;
  onednn::execute(prim->primitive, args);
  if (direct) return true;
  if (dtype == cd) {
    dnnl::memory user = onednn::memory(cv.out);
    onednn::execute(onednn::reorder(prim->dst, user.get_desc()),
                    {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, user}});
  } else {
    NhwcView v(cv.out);
    int64_t strides[4];
    onednn::convert(dense_nhwc_view(cd, dst, v, strides), v.view(dtype, data_of(cv.out)));
  }
  return true;
}

// conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding,
//            int[2] dilation, int groups, *, Tensor(a!) out)
void conv2d_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& input = args.tensor(0);
  const plexus_tensor& weight = args.tensor(1);
  const plexus_tensor& out = args.tensor(7);
  auto stride = args.int_list(3), padding = args.int_list(4), dilation = args.int_list(5);
  ConvShape s{.n = input.sizes[0],
              .c = input.sizes[1],
              .h = input.sizes[2],
              .w = input.sizes[3],
              .oc = weight.sizes[0],
              .kh = weight.sizes[2],
              .kw = weight.sizes[3],
              .oh = out.sizes[2],
              .ow = out.sizes[3],
              .sh = stride[0],
              .sw = stride[1],
              .ph = padding[0],
              .pw = padding[1],
              .dh = dilation[0],
              .dw = dilation[1],
              .groups = args.integer(6)};
  Conv cv{input, weight, args.optional_tensor(2), out, s};
  if (s.n * s.oc * s.oh * s.ow == 0) return;
  bool onednn = call.dtype != PLEXUS_DTYPE_F64 && s.c > 0 && conv_onednn(cv);
  if (onednn) return;
  sdk::visit_dtype(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> ||
                  sdk::is_reduced_float_v<T>)
      conv_direct<T>(cv);
    else
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "conv2d of {}", sdk::dtype_name(call.dtype));
  });
}

}  // namespace

void register_conv(CpuBackend& b) {
  b.register_kernel<&conv2d_out>("conv2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
