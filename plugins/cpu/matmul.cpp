// Matrix products: mm.out, bmm.out and addmm.out, all as one batched product
// out = beta * self + alpha * (a @ b). f32 and bf16 run oneDNN's matmul with
// the operands' strides passed through (transposes are not copied); f16
// computes in f32 (this oneDNN has no f16 matmul); f64 and the integer dtypes
// run the blocked kernel in matmul_blocked below.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "kernels.h"
#include "onednn.h"
#include "parallel.h"

namespace plexus::cpu {
namespace {

using dims = dnnl::memory::dims;

// A matrix operand as [batch, rows, cols] with strides in elements; 2-D
// tensors have batch 1. data points at element [0, 0, 0].
struct Mat {
  char* data;
  plexus_dtype dtype;
  int32_t ndim;  // 2 or 3, as the tensor
  int64_t batch, rows, cols;
  int64_t sb, sr, sc;

  explicit Mat(const plexus_tensor& t) : dtype(t.dtype), ndim(t.ndim) {
    bool b3 = t.ndim == 3;
    data = static_cast<char*>(t.storage) + t.offset * int64_t(sdk::dtype_size(t.dtype));
    batch = b3 ? t.sizes[0] : 1;
    sb = b3 ? t.strides[0] : 0;
    rows = t.sizes[t.ndim - 2];
    cols = t.sizes[t.ndim - 1];
    sr = t.strides[t.ndim - 2];
    sc = t.strides[t.ndim - 1];
  }
  template <typename T>
  T* at(int64_t b, int64_t i, int64_t j) const {
    return reinterpret_cast<T*>(data) + b * sb + i * sr + j * sc;
  }
  int64_t numel() const { return batch * rows * cols; }
  // The first and one-past-last byte the view can touch.
  std::pair<const char*, const char*> span() const {
    if (numel() == 0) return {data, data};
    int64_t last = (batch - 1) * sb + (rows - 1) * sr + (cols - 1) * sc;
    return {data, data + (last + 1) * int64_t(sdk::dtype_size(dtype))};
  }
};

bool overlaps(const Mat& x, const Mat& y) {
  auto [a0, a1] = x.span();
  auto [b0, b1] = y.span();
  return a0 < b1 && b0 < a1;
}

// One call of mm, bmm or addmm: out = beta * self + alpha * (a @ b). self is
// only read when beta is not zero (so NaNs in an ignored self stay out).
struct Product {
  Mat a, b, out;
  std::optional<Mat> self;
  plexus_dtype dtype;
  sdk::Scalar alpha, beta;
  int64_t k() const { return a.cols; }
  bool beta_zero() const {
    return beta.is_floating() ? beta.to_double() == 0.0 : beta.to_int() == 0;
  }
  bool alpha_zero() const {
    return alpha.is_floating() ? alpha.to_double() == 0.0 : alpha.to_int() == 0;
  }
  bool alpha_one() const {
    return alpha.is_floating() ? alpha.to_double() == 1.0 : alpha.to_int() == 1;
  }
};

// ---- k == 0 or alpha == 0: out = beta * self, or zeros ----------------------
// A zero alpha drops the product, NaN and inf in its operands included (BLAS's
// rule; oneDNN's bf16 matmul also returned stale values for an output scale of 0).

template <typename T>
void fill_empty_product(const Product& p) {
  using C = sdk::compute_type_t<T>;
  bool use_self = p.self && !p.beta_zero();
  C beta = p.beta.to<C>();
  for (int64_t b = 0; b < p.out.batch; ++b)
    for (int64_t i = 0; i < p.out.rows; ++i)
      for (int64_t j = 0; j < p.out.cols; ++j) {
        C v = use_self ? C(beta * C(*p.self->at<const T>(b, i, j))) : C(0);
        *p.out.at<T>(b, i, j) = T(v);
      }
}

// ---- oneDNN: f32, bf16, and f16 through f32 ---------------------------------

// Strides for oneDNN: a size-1 dim takes the stride that keeps the layout
// plain (row- or column-major), so [n, 1] and [1, k] views need no copy.
struct Layout {
  int64_t rows, cols, sr, sc;
  bool plain() const { return (sc == 1 && sr >= cols) || (sr == 1 && sc >= rows); }
};
Layout layout(const Mat& m) {
  Layout l{m.rows, m.cols, m.sr, m.sc};
  if (l.cols == 1) l.sc = 1;
  if (l.rows == 1) l.sr = l.sc == 1 ? l.cols : 1;
  return l;
}

// Row-major strides of a dense array of these sizes.
dims dense_strides(const dims& sizes) {
  dims s(sizes.size());
  int64_t st = 1;
  for (size_t d = s.size(); d-- > 0;) s[d] = st, st *= std::max<int64_t>(sizes[d], 1);
  return s;
}

// An operand as oneDNN takes it: dims and strides of its view, or of a dense
// copy in the compute dtype (staged).
struct Operand {
  const Mat* m;
  dims sizes, strides;
  bool staged;
};

// `broadcast`: a batch stride of 0 becomes a batch dim of 1 (oneDNN broadcasts it).
Operand operand(const Mat& m, plexus_dtype cd, bool broadcast) {
  Layout l = layout(m);
  Operand o{&m, {}, {}, m.dtype != cd || !l.plain()};
  int64_t extent = l.sc == 1 ? l.sr * l.rows : l.sc * l.cols;
  if (m.ndim == 3) {
    int64_t batch = m.batch, sb = m.sb;
    if (batch == 1) sb = extent;
    if (sb == 0 && broadcast) batch = 1, sb = extent;
    if (sb == 0) o.staged = true;
    o.sizes = {batch, l.rows, l.cols};
    o.strides = {sb, l.sr, l.sc};
  } else {
    o.sizes = {l.rows, l.cols};
    o.strides = {l.sr, l.sc};
  }
  if (o.staged) o.strides = dense_strides(o.sizes);
  return o;
}

dnnl::memory::desc desc_of(const Operand& o, plexus_dtype cd) {
  return onednn::desc(cd, o.sizes, o.strides);
}

// A matmul primitive for these descriptors; `dense` when oneDNN offered only
// its reference implementation for the strides given, and the primitive was
// made for dense copies instead.
struct MatmulPrimitive {
  dnnl::matmul primitive;
  bool dense;
};

MatmulPrimitive matmul_primitive(const dnnl::memory::desc& a, const dnnl::memory::desc& b,
                                 const dnnl::memory::desc& c, bool scaled, bool accumulate) {
  onednn::Key key("matmul");
  key.add(a).add(b).add(c).add(int64_t{scaled}).add(int64_t{accumulate});
  return onednn::cached<MatmulPrimitive>(key, [&] {
    dnnl::primitive_attr attr = onednn::attr();
    if (scaled) attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      attr.set_post_ops(ops);
    }
    auto make = [&](const dnnl::memory::desc& da, const dnnl::memory::desc& db,
                    const dnnl::memory::desc& dc) {
      return dnnl::matmul::primitive_desc(dnnl::matmul::desc(da, db, dc), attr, onednn::engine());
    };
    auto pd = make(a, b, c);
    if (!onednn::is_reference(pd)) return MatmulPrimitive{dnnl::matmul(pd), false};
    auto dense = [](const dnnl::memory::desc& d) {
      return dnnl::memory::desc(d.dims(), d.data_type(), dense_strides(d.dims()));
    };
    return MatmulPrimitive{dnnl::matmul(make(dense(a), dense(b), dense(c))), true};
  });
}

// The view convert() reads or writes for an operand: its tensor's elements,
// with a broadcast batch reduced to its one matrix.
struct MatView {
  int64_t sizes[3], strides[3];
  onednn::View view;
  MatView(const Mat& m, const Operand& o) {
    int n = int(o.sizes.size());
    int64_t st[3] = {m.sb, m.sr, m.sc};
    for (int d = 0; d < n; ++d) {
      sizes[d] = o.sizes[size_t(d)];
      strides[d] = st[3 - n + d];
    }
    view = {m.dtype, m.data, n, sizes, strides};
  }
};

// A dense buffer in the compute dtype for an operand that is staged.
dnnl::memory dense_memory(const Operand& o, plexus_dtype cd) {
  return dnnl::memory(onednn::dense_desc(cd, o.sizes), onednn::engine());
}

onednn::View dense_view(const dnnl::memory& mem, const Operand& o, plexus_dtype cd, dims& strides) {
  strides = dense_strides(o.sizes);
  return {cd, mem.get_data_handle(), int32_t(o.sizes.size()), o.sizes.data(), strides.data()};
}

void matmul_onednn(const Product& p) {
  plexus_dtype cd = p.dtype == PLEXUS_DTYPE_F16 ? PLEXUS_DTYPE_F32 : p.dtype;
  bool accumulate = p.self && !p.beta_zero();
  bool scaled = !p.alpha_one();
  // oneDNN broadcasts a batch of 1 against the other operand's batch, not both
  // against the output's: when both are broadcast, b is staged batch by batch.
  bool both_broadcast = p.out.batch > 1 && p.a.ndim == 3 && p.b.ndim == 3 &&
                        (p.a.sb == 0 || p.a.batch == 1) && (p.b.sb == 0 || p.b.batch == 1);
  Operand a = operand(p.a, cd, true), b = operand(p.b, cd, !both_broadcast);
  Operand c = operand(p.out, cd, false);
  if (!c.staged && (overlaps(p.out, p.a) || overlaps(p.out, p.b))) {
    c.staged = true;
    c.strides = dense_strides(c.sizes);
  }
  MatmulPrimitive prim =
      matmul_primitive(desc_of(a, cd), desc_of(b, cd), desc_of(c, cd), scaled, accumulate);
  if (prim.dense) a.staged = b.staged = c.staged = true;

  // Inputs: the tensors themselves, or dense copies in the compute dtype.
  auto input = [&](const Operand& o) {
    if (!o.staged) return onednn::memory(desc_of(o, cd), o.m->data);
    dnnl::memory mem = dense_memory(o, cd);
    dims strides;
    onednn::convert(MatView(*o.m, o).view, dense_view(mem, o, cd, strides));
    return mem;
  };
  dnnl::memory ma = input(a), mb = input(b);
  dnnl::memory mc = c.staged ? dense_memory(c, cd) : onednn::memory(desc_of(c, cd), c.m->data);
  dims c_strides;
  MatView c_out(p.out, c);
  onednn::View c_view = c.staged ? dense_view(mc, c, cd, c_strides) : c_out.view;
  if (accumulate) {  // out = beta * self, then the product is summed into it
    MatView s(*p.self, c);
    onednn::convert(s.view, c_view, float(p.beta.to_double()));
  }
  float alpha = float(p.alpha.to_double());
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
  if (scaled) args.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES, onednn::scalar_memory(&alpha));
  onednn::execute(prim.primitive, args);
  if (c.staged) onednn::convert(c_view, c_out.view);
}

// ---- Blocked kernel: f64 and the integer dtypes -----------------------------

// The accumulator and register tile per element type. Integers accumulate in
// unsigned 32 or 64 bits: the product wraps like the element type does, and
// unsigned overflow is defined.
template <typename T>
struct Tile {
  using Acc = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  static constexpr int MR = sizeof(T) == 8 ? 4 : 6, NR = sizeof(T) == 8 ? 8 : 16;
};
template <>
struct Tile<double> {
  using Acc = double;
  static constexpr int MR = 6, NR = 8;
};

constexpr int64_t kKC = 256;      // depth of a packed block
constexpr int64_t kMCTiles = 12;  // MC = MR * kMCTiles rows per packed block of a
constexpr int64_t kNC = 512;      // columns per packed block of b

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Packs rows [0, mc) x depth [0, kc) of a (strides sr, sc) into MR-row
// panels, depth-major, zero-padded.
template <typename T, typename Acc, int MR>
void pack_a(const T* a, int64_t sr, int64_t sc, int64_t mc, int64_t kc, Acc* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR, out += MR * kc) {
    int64_t mr = std::min<int64_t>(MR, mc - i0);
    for (int64_t p = 0; p < kc; ++p)
      for (int i = 0; i < MR; ++i)
        out[p * MR + i] = i < mr ? Acc(a[(i0 + i) * sr + p * sc]) : Acc(0);
  }
}

// Packs panel `panel` (NR columns) of depth [0, kc) x cols [0, nc) of b.
template <typename T, typename Acc, int NR>
void pack_b_panel(const T* b, int64_t sr, int64_t sc, int64_t nc, int64_t kc, int64_t panel,
                  Acc* out) {
  int64_t j0 = panel * NR, nr = std::min<int64_t>(NR, nc - j0);
  out += panel * NR * kc;
  for (int64_t p = 0; p < kc; ++p)
    for (int j = 0; j < NR; ++j) out[p * NR + j] = j < nr ? Acc(b[p * sr + (j0 + j) * sc]) : Acc(0);
}

// acc = a panel @ b panel over depth kc.
template <typename Acc, int MR, int NR>
inline void micro_kernel(int64_t kc, const Acc* __restrict ap, const Acc* __restrict bp,
                         Acc (&acc)[MR][NR]) {
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = Acc(0);
  for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      Acc av = ap[p * MR + i];
#pragma omp simd
      for (int j = 0; j < NR; ++j) acc[i][j] += av * bp[p * NR + j];
    }
  }
}

// One 2-D product for the blocked kernel, strides in elements.
template <typename T>
struct Gemm {
  using Acc = typename Tile<T>::Acc;
  const T* a;
  int64_t asr, asc;
  const T* b;
  int64_t bsr, bsc;
  T* c;
  int64_t csr, csc;
  const T* self;  // nullptr: out = alpha * (a @ b)
  int64_t ssr, ssc;
  int64_t m, n, k;
  Acc alpha, beta;
};

// Writes an mr x nr tile: out = beta * self + alpha * acc on the first depth
// block, out += alpha * acc on the others.
template <typename T, typename Acc, int MR, int NR>
void store_tile(const Gemm<T>& g, const Acc (&acc)[MR][NR], int64_t i0, int64_t j0, int64_t mr,
                int64_t nr, bool first) {
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) {
      T* c = g.c + (i0 + i) * g.csr + (j0 + j) * g.csc;
      Acc v = g.alpha * acc[i][j];
      if (!first)
        v += Acc(*c);
      else if (g.self)
        v += g.beta * Acc(g.self[(i0 + i) * g.ssr + (j0 + j) * g.ssc]);
      *c = T(v);
    }
}

// Buffers for packed blocks: one of a per thread, one of b shared.
template <typename Acc>
struct Workspace {
  std::vector<Acc> a, b;
  int64_t a_size;
};

template <typename T>
Workspace<typename Tile<T>::Acc> workspace(int64_t m, int64_t n, int64_t k, int threads) {
  using TL = Tile<T>;
  int64_t mc = std::min(TL::MR * kMCTiles, ceil_div(m, TL::MR) * TL::MR);
  int64_t nc = std::min(kNC, ceil_div(n, TL::NR) * TL::NR), kc = std::min(kKC, k);
  Workspace<typename TL::Acc> w;
  w.a_size = mc * kc;
  w.a.resize(size_t(w.a_size * threads));
  w.b.resize(size_t(kc * nc));
  return w;
}

// c = beta * self + alpha * (a @ b) for k > 0, on `threads` threads (1: this
// one). Loops as in BLIS: columns of b in blocks of NC, depth in blocks of
// KC (b packed once per block), then tasks of (MC rows, group of NR panels).
// Nothing in here throws.
template <typename T>
void gemm(const Gemm<T>& g, Workspace<typename Tile<T>::Acc>& w, int threads) {
  using TL = Tile<T>;
  using Acc = typename TL::Acc;
  constexpr int MR = TL::MR, NR = TL::NR;
  constexpr int64_t MC = MR * kMCTiles;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    Acc* abuf = w.a.data() + omp_get_thread_num() * w.a_size;
    int nt = omp_get_num_threads();
    for (int64_t jc = 0; jc < g.n; jc += kNC) {
      int64_t nc = std::min(kNC, g.n - jc), panels = ceil_div(nc, NR);
      for (int64_t pc = 0; pc < g.k; pc += kKC) {
        int64_t kc = std::min(kKC, g.k - pc);
#pragma omp for schedule(static)
        for (int64_t q = 0; q < panels; ++q)
          pack_b_panel<T, Acc, NR>(g.b + pc * g.bsr + jc * g.bsc, g.bsr, g.bsc, nc, kc, q,
                                   w.b.data());
        int64_t mblocks = ceil_div(g.m, MC);
        int64_t groups = mblocks >= nt ? 1 : std::min(panels, ceil_div(nt, mblocks));
#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < mblocks * groups; ++task) {
          int64_t ic = (task / groups) * MC, grp = task % groups;
          int64_t mc = std::min(MC, g.m - ic);
          pack_a<T, Acc, MR>(g.a + ic * g.asr + pc * g.asc, g.asr, g.asc, mc, kc, abuf);
          for (int64_t q = grp * panels / groups; q < (grp + 1) * panels / groups; ++q) {
            for (int64_t ir = 0; ir < mc; ir += MR) {
              Acc acc[MR][NR];
              micro_kernel<Acc, MR, NR>(kc, abuf + ir * kc, w.b.data() + q * NR * kc, acc);
              store_tile<T, Acc, MR, NR>(g, acc, ic + ir, jc + q * NR,
                                         std::min<int64_t>(MR, mc - ir),
                                         std::min<int64_t>(NR, nc - q * NR), pc == 0);
            }
          }
        }
      }
    }
  }
}

template <typename T>
void matmul_blocked(const Product& p) {
  using Acc = typename Tile<T>::Acc;
  const Mat& out = p.out;
  // Where the product is written: out, or a dense copy when out overlaps an input.
  bool staged = overlaps(out, p.a) || overlaps(out, p.b);
  std::vector<T> tmp(staged ? size_t(out.numel()) : 0);
  auto c_at = [&](int64_t b) {
    return staged ? tmp.data() + b * out.rows * out.cols : out.at<T>(b, 0, 0);
  };
  int64_t csr = staged ? out.cols : out.sr, csc = staged ? 1 : out.sc;
  bool use_self = p.self && !p.beta_zero();
  auto one = [&](int64_t b) {
    Gemm<T> g{p.a.at<const T>(b, 0, 0),
              p.a.sr,
              p.a.sc,
              p.b.at<const T>(b, 0, 0),
              p.b.sr,
              p.b.sc,
              c_at(b),
              csr,
              csc,
              nullptr,
              0,
              0,
              out.rows,
              out.cols,
              p.k(),
              Acc(p.alpha.to<T>()),
              Acc(p.beta.to<T>())};
    if (use_self) g.self = p.self->at<const T>(b, 0, 0), g.ssr = p.self->sr, g.ssc = p.self->sc;
    return g;
  };
  int64_t work = out.rows * out.cols * p.k();
  int max_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (out.batch > 1 && work < (int64_t(1) << 21) && max_threads > 1) {
    // Many small products: one per thread at a time.
    std::vector<Workspace<Acc>> ws;
    for (int t = 0; t < max_threads; ++t) ws.push_back(workspace<T>(out.rows, out.cols, p.k(), 1));
#pragma omp parallel for schedule(dynamic, 1) num_threads(max_threads)
    for (int64_t b = 0; b < out.batch; ++b) gemm(one(b), ws[size_t(omp_get_thread_num())], 1);
  } else {
    int threads = work < kGrain ? 1 : max_threads;
    auto w = workspace<T>(out.rows, out.cols, p.k(), threads);
    for (int64_t b = 0; b < out.batch; ++b) gemm(one(b), w, threads);
  }
  if (staged) {
    int64_t sizes[3] = {out.batch, out.rows, out.cols},
            dense[3] = {out.rows * out.cols, out.cols, 1};
    int64_t strides[3] = {out.sb, out.sr, out.sc};
    onednn::convert({out.dtype, tmp.data(), 3, sizes, dense},
                    {out.dtype, out.data, 3, sizes, strides});
  }
}

// ---- 2-D float32: oneDNN's sgemm ---------------------------------------------
// A plain product of two matrices costs oneDNN's matmul primitive more to set
// up per call (primitive cache lookup, memory objects) than the seed model's
// 32x10x64 product takes to compute; its BLAS-style sgemm takes the pointers
// and leading dimensions directly.

// 'N' with the leading dimension when m is row-major, 'T' when column-major.
std::optional<std::pair<char, int64_t>> blas_layout(const Mat& m) {
  if (m.sc == 1 && m.sr >= std::max<int64_t>(m.cols, 1)) return std::pair{'N', m.sr};
  if (m.sr == 1 && m.sc >= std::max<int64_t>(m.rows, 1)) return std::pair{'T', m.sc};
  return std::nullopt;
}

// True when it ran the product.
bool matmul_sgemm(const Product& p) {
  if (p.dtype != PLEXUS_DTYPE_F32 || p.out.batch != 1 || p.a.batch != 1 || p.b.batch != 1)
    return false;
  if (p.out.sc != 1 || p.out.sr < std::max<int64_t>(p.out.cols, 1)) return false;
  auto la = blas_layout(p.a), lb = blas_layout(p.b);
  if (!la || !lb || overlaps(p.out, p.a) || overlaps(p.out, p.b)) return false;
  if (p.self && overlaps(p.out, *p.self) && (p.self->data != p.out.data ||
                                             p.self->sr != p.out.sr || p.self->sc != p.out.sc))
    return false;
  const bool accumulate = p.self && !p.beta_zero();
  if (accumulate)  // out = self (broadcast); sgemm's beta scales it
    for (int64_t i = 0; i < p.out.rows; ++i)
      for (int64_t j = 0; j < p.out.cols; ++j)
        *p.out.at<float>(0, i, j) = *p.self->at<float>(0, i, j);
  const int64_t m = p.out.rows, n = p.out.cols, k = p.k();
  const size_t bytes = size_t(m * k + k * n + m * n) * sizeof(float);
  int prev = 0;
  // One thread below 2 MiB of operands: threads did not pay for themselves
  // at the seed model's batch-800 sizes (kGrain, parallel.h).
  if (bytes < 2048 * 1024 && (prev = omp_get_max_threads()) > 1) omp_set_num_threads(1);
  dnnl_status_t st = dnnl_sgemm(la->first, lb->first, m, n, k, float(p.alpha.to_double()),
                                p.a.at<float>(0, 0, 0), la->second, p.b.at<float>(0, 0, 0),
                                lb->second, accumulate ? float(p.beta.to_double()) : 0.0f,
                                p.out.at<float>(0, 0, 0), p.out.sr);
  if (prev > 1) omp_set_num_threads(prev);
  if (st != dnnl_success)
    sdk::fail(PLEXUS_ERROR_DEVICE, "oneDNN sgemm failed ({}) for a {}x{}x{} product", int(st),
              m, k, n);
  return true;
}

// ---- Kernels ----------------------------------------------------------------

void run(const Product& p) {
  if (p.out.numel() == 0) return;
  sdk::visit_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "matrix products of bool are not supported");
    } else if (p.k() == 0 || p.alpha_zero()) {
      fill_empty_product<T>(p);
    } else if constexpr (std::is_floating_point_v<T> && sizeof(T) == 8) {
      matmul_blocked<T>(p);
    } else if constexpr (sdk::is_reduced_float_v<T> || std::is_same_v<T, float>) {
      if (!matmul_sgemm(p)) matmul_onednn(p);
    } else {
      matmul_blocked<T>(p);
    }
  });
}

plexus_scalar int_scalar(int64_t v) {
  plexus_scalar s{};
  s.kind = PLEXUS_SCALAR_INT;
  s.v.i = v;
  return s;
}

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void mm_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(Product{Mat(args.tensor(0)), Mat(args.tensor(1)), Mat(args.tensor(2)), std::nullopt,
              call.dtype, sdk::Scalar(int_scalar(1)), sdk::Scalar(int_scalar(0))});
}

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta, Scalar alpha, Tensor(a!) out)
void addmm_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(Product{Mat(args.tensor(1)), Mat(args.tensor(2)), Mat(args.tensor(5)), Mat(args.tensor(0)),
              call.dtype, args.scalar(4), args.scalar(3)});
}

plexus_scalar float_scalar(double v) {
  plexus_scalar s{};
  s.kind = PLEXUS_SCALAR_FLOAT;
  s.v.f = v;
  return s;
}

}  // namespace

void fused_product(const plexus_tensor& a, const plexus_tensor& b, const plexus_tensor& out,
                   const plexus_tensor* self, double beta, double alpha) {
  std::optional<Mat> s;
  if (self) {
    // A 1-D (or one-row) self broadcast over the rows, as addmm's kernel sees it.
    plexus_tensor e = *self;
    int64_t sizes[2] = {out.sizes[0], out.sizes[1]};
    int64_t strides[2] = {self->ndim == 2 && self->sizes[0] != 1 ? self->strides[0] : 0,
                          self->ndim >= 1 && self->sizes[self->ndim - 1] != 1
                              ? self->strides[self->ndim - 1]
                              : 0};
    e.ndim = 2;
    e.sizes = sizes;
    e.strides = strides;
    s = Mat(e);
  }
  run(Product{Mat(a), Mat(b), Mat(out), s, PLEXUS_DTYPE_F32, sdk::Scalar(float_scalar(alpha)),
              sdk::Scalar(float_scalar(beta))});
}

void register_matmul(CpuBackend& b) {
  b.register_kernel<&mm_out>("mm.out", sdk::kNumericDTypes);
  b.register_kernel<&mm_out>("bmm.out", sdk::kNumericDTypes);
  b.register_kernel<&addmm_out>("addmm.out", sdk::kNumericDTypes);
}

}  // namespace plexus::cpu
