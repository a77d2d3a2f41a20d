// softmax and log_softmax along a dim: rows of the elements along `dim` in
// parallel (float rows on AVX-512 or AVX2 exponentials), or, when dense dims
// follow `dim`, blocks of columns. softmax_backward and log_softmax_backward:
// one pass per row.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "rows.h"

namespace plexus::cpu {
namespace {

// ---- Row arithmetic in float and double -----------------------------------

// The largest of n values (NaN skipped; a NaN row still ends as NaN through
// the sum of exponentials).
template <typename C>
C row_max(const C* x, int64_t n) {
  constexpr int L = kLanes<C>;
  C acc[L];
  for (int l = 0; l < L; ++l) acc[l] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];
  for (; i < n; ++i) acc[0] = x[i] > acc[0] ? x[i] : acc[0];
  for (int l = 1; l < L; ++l) acc[0] = acc[l] > acc[0] ? acc[l] : acc[0];
  return acc[0];
}

// e^t for the t = x - max of a softmax row: t <= 0, or NaN (which stays NaN).
// Cephes' polynomial, within 2 ulp. The float rows take 16 lanes where the
// cpu has AVX-512 (results down to the subnormals), else 8 (results below the
// normal floats become 0).
namespace fexp {
constexpr float kLow = -88.0f;  // AVX2 keeps 2^n normal or 0: n >= -127
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
constexpr float kC[8] = {1.0f,
                         1.0f,
                         5.0000001201e-1f,
                         1.6666665459e-1f,
                         4.1665795894e-2f,
                         8.3334519073e-3f,
                         1.3981999507e-3f,
                         1.9875691500e-4f};
}  // namespace fexp

#if defined(__AVX2__) && defined(__FMA__)
inline __m256 exp_nonpositive(__m256 t) {
  using namespace fexp;
  t = _mm256_max_ps(_mm256_set1_ps(kLow), t);  // the second operand wins for NaN: NaN stays
  __m256 j = _mm256_fmadd_ps(t, _mm256_set1_ps(kLog2e), _mm256_set1_ps(kMagic));
  __m256 n = _mm256_sub_ps(j, _mm256_set1_ps(kMagic));
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), t);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kC[7]);
  for (int k = 6; k >= 0; --k) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kC[k]));
  // 2^n: n sits in j's low mantissa bits; move it to the exponent and bias it.
  __m256i scale = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(j), 23),
                                   _mm256_set1_epi32(0x3f800000));
  return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

// Sums e^(x - m) over n floats, storing each into y when Store.
template <bool Store>
float exp_sum_avx2(const float* x, float* y, int64_t n, float m) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 e0 = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    __m256 e1 = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vm));
    if constexpr (Store) {
      _mm256_storeu_ps(y + i, e0);
      _mm256_storeu_ps(y + i + 8, e1);
    }
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
  }
  for (; i < n; i += 8) {  // the last 1..15 elements, 8 at a time, masked
    int64_t k = std::min<int64_t>(8, n - i);
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(k)),
                                      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), vm));
    e = _mm256_and_ps(e, _mm256_castsi256_ps(mask));
    if constexpr (Store) _mm256_maskstore_ps(y + i, mask, e);
    s0 = _mm256_add_ps(s0, e);
  }
  __m256 s = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

#define PLEXUS_CPU_AVX512 __attribute__((target("avx512f")))

PLEXUS_CPU_AVX512 inline __m512 exp_nonpositive(__m512 t) {
  using namespace fexp;
  // Below -104 (and for -inf) scalef gives 0; the masked forms avoid GCC 12's
  // uninitialized-source warnings in the unmasked intrinsics.
  t = _mm512_maskz_max_ps(0xffff, _mm512_set1_ps(-110.0f), t);
  __m512 j = _mm512_fmadd_ps(t, _mm512_set1_ps(kLog2e), _mm512_set1_ps(kMagic));
  __m512 n = _mm512_sub_ps(j, _mm512_set1_ps(kMagic));
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), t);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kC[7]);
  for (int k = 6; k >= 0; --k) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kC[k]));
  return _mm512_maskz_scalef_ps(0xffff, p, n);  // p * 2^n
}

// The mask of the first min(16, k) lanes.
inline __mmask16 first_lanes(int64_t k) {
  return static_cast<__mmask16>((1u << std::min<int64_t>(16, k)) - 1);
}

// The largest of 16 lanes.
PLEXUS_CPU_AVX512 inline float max_lanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float m = lanes[0];
  for (float x : lanes) m = x > m ? x : m;
  return m;
}

// The largest of n floats; NaN is skipped (max takes its second operand then).
PLEXUS_CPU_AVX512 float row_max_avx512(const float* x, int64_t n) {
  const __m512 low = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 m0 = low, m1 = low, m2 = low, m3 = low;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    m0 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(x + i), m0);
    m1 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(x + i + 16), m1);
    m2 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(x + i + 32), m2);
    m3 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(x + i + 48), m3);
  }
  for (; i < n; i += 16)
    m0 = _mm512_maskz_max_ps(0xffff, _mm512_mask_loadu_ps(low, first_lanes(n - i), x + i), m0);
  m0 = _mm512_maskz_max_ps(0xffff, _mm512_maskz_max_ps(0xffff, m0, m1),
                           _mm512_maskz_max_ps(0xffff, m2, m3));
  return max_lanes(m0);
}

// Sums e^(x - m) over n floats, storing each into y when Store. With `next`
// (another n floats: the following row), also finds next's largest into
// *next_max, so that its loads overlap this row's arithmetic.
template <bool Store>
PLEXUS_CPU_AVX512 float exp_sum_avx512(const float* x, float* y, int64_t n, float m,
                                       const float* next, float* next_max) {
  const __m512 vm = _mm512_set1_ps(m);
  const __m512 low = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), m0 = low, m1 = low;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 e0 = exp_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    __m512 e1 = exp_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vm));
    if constexpr (Store) {
      _mm512_storeu_ps(y + i, e0);
      _mm512_storeu_ps(y + i + 16, e1);
    }
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
    if (next) {
      m0 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(next + i), m0);
      m1 = _mm512_maskz_max_ps(0xffff, _mm512_loadu_ps(next + i + 16), m1);
    }
  }
  for (; i < n; i += 16) {  // the last 1..31 elements, 16 at a time, masked
    __mmask16 mask = first_lanes(n - i);
    __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, x + i), vm));
    e = _mm512_maskz_mov_ps(mask, e);
    if constexpr (Store) _mm512_mask_storeu_ps(y + i, mask, e);
    s0 = _mm512_add_ps(s0, e);
    if (next) m0 = _mm512_maskz_max_ps(0xffff, _mm512_mask_loadu_ps(low, mask, next + i), m0);
  }
  if (next) *next_max = max_lanes(_mm512_maskz_max_ps(0xffff, m0, m1));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(s0, s1));
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}

// softmax or log_softmax of a float row whose largest value is m, 16 lanes at
// a time; returns the largest of `next` when given (see exp_sum_avx512).
PLEXUS_CPU_AVX512 float softmax_row_avx512(const float* x, float* y, int64_t n, bool log, float m,
                                           const float* next) {
  float next_max = 0;
  if (log) {
    const __m512 c =
        _mm512_set1_ps(std::log(exp_sum_avx512<false>(x, nullptr, n, m, next, &next_max)));
    const __m512 vm = _mm512_set1_ps(m);
    for (int64_t i = 0; i < n; i += 16) {
      __mmask16 mask = first_lanes(n - i);
      __m512 v = _mm512_maskz_loadu_ps(mask, x + i);
      _mm512_mask_storeu_ps(y + i, mask, _mm512_sub_ps(_mm512_sub_ps(v, vm), c));
    }
  } else {
    const __m512 inv = _mm512_set1_ps(1.0f / exp_sum_avx512<true>(x, y, n, m, next, &next_max));
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
    if (i < n) {
      __mmask16 mask = first_lanes(n - i);
      _mm512_mask_storeu_ps(y + i, mask, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, y + i), inv));
    }
  }
  return next_max;
}

// softmax of rows [b, e) of a float tensor with dense rows of n; each row's
// largest value is found while the row before it is exponentiated.
PLEXUS_CPU_AVX512 void softmax_rows_avx512(const float* x, float* y, const RowIndex& rows,
                                           int64_t b, int64_t e, int64_t n, bool log) {
  int64_t io, oo, next_io = 0, next_oo = 0;
  rows.offsets(b, io, oo);
  float m = row_max_avx512(x + io, n);
  for (int64_t r = b; r < e; ++r) {
    const float* next = nullptr;
    if (r + 1 < e) {
      rows.offsets(r + 1, next_io, next_oo);
      next = x + next_io;
    }
    m = softmax_row_avx512(x + io, y + oo, n, log, m, next);
    io = next_io;
    oo = next_oo;
  }
}

// Sums e^(x - m) over n floats, storing each into y when Store.
template <bool Store>
float exp_sum(const float* x, float* y, int64_t n, float m) {
  return exp_sum_avx2<Store>(x, y, n, m);
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
#else
bool has_avx512() {
  return false;
}
float row_max_avx512(const float*, int64_t) {
  return 0;
}
float softmax_row_avx512(const float*, float*, int64_t, bool, float, const float*) {
  return 0;
}
void softmax_rows_avx512(const float*, float*, const RowIndex&, int64_t, int64_t, int64_t, bool) {}

template <bool Store>
float exp_sum(const float* x, float* y, int64_t n, float m) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float e = std::exp(x[i] - m);
    if constexpr (Store) y[i] = e;
    s += e;
  }
  return s;
}
#endif

template <bool Store>
double exp_sum(const double* x, double* y, int64_t n, double m) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    double e = std::exp(x[i] - m);
    if constexpr (Store) y[i] = e;
    s += e;
  }
  return s;
}

// y = softmax(x) or log_softmax(x) of one row (y may be x). Stable: the max
// is subtracted before exponentiating.
template <typename C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
  if constexpr (std::is_same_v<C, float>) {
    if (has_avx512()) {
      softmax_row_avx512(x, y, n, log, row_max_avx512(x, n), nullptr);
      return;
    }
  }
  C m = row_max(x, n);
  if (log) {
    C lse = std::log(exp_sum<false>(x, nullptr, n, m));
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - lse;
  } else {
    C inv = C(1) / exp_sum<true>(x, y, n, m);
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

// Sums e^(x[j] - m[j]) into s[j] for j < k, storing each into y[j] unless y
// is null.
void exp_columns(const float* x, const float* m, float* y, float* s, int64_t k) {
#if defined(__AVX2__) && defined(__FMA__)
  for (int64_t j = 0; j < k; j += 8) {
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(8, k - j))),
                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 e = exp_nonpositive(
        _mm256_sub_ps(_mm256_maskload_ps(x + j, mask), _mm256_maskload_ps(m + j, mask)));
    if (y) _mm256_maskstore_ps(y + j, mask, e);
    _mm256_maskstore_ps(s + j, mask, _mm256_add_ps(_mm256_maskload_ps(s + j, mask), e));
  }
#else
  for (int64_t j = 0; j < k; ++j) {
    float e = std::exp(x[j] - m[j]);
    if (y) y[j] = e;
    s[j] += e;
  }
#endif
}

void exp_columns(const double* x, const double* m, double* y, double* s, int64_t k) {
  for (int64_t j = 0; j < k; ++j) {
    double e = std::exp(x[j] - m[j]);
    if (y) y[j] = e;
    s[j] += e;
  }
}

// Columns per task of a softmax along a dim that is not the innermost.
constexpr int64_t kSoftmaxColumns = 256;

// softmax or log_softmax down k dense columns (k <= kSoftmaxColumns) of n
// rows: row r of the input at x + r * sx, of the output at y + r * sy. Each
// pass runs along the rows for all k columns at once.
template <typename C>
void softmax_columns(const C* x, int64_t sx, C* y, int64_t sy, int64_t n, int64_t k, bool log) {
  C m[kSoftmaxColumns], s[kSoftmaxColumns];
  std::fill(m, m + k, -std::numeric_limits<C>::infinity());
  std::fill(s, s + k, C(0));
  for (int64_t r = 0; r < n; ++r) {
    const C* row = x + r * sx;
    for (int64_t j = 0; j < k; ++j) m[j] = row[j] > m[j] ? row[j] : m[j];
  }
  for (int64_t r = 0; r < n; ++r) exp_columns(x + r * sx, m, log ? nullptr : y + r * sy, s, k);
  if (log) {
    for (int64_t j = 0; j < k; ++j) s[j] = std::log(s[j]);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < k; ++j) y[r * sy + j] = (x[r * sx + j] - m[j]) - s[j];
  } else {
    for (int64_t j = 0; j < k; ++j) s[j] = C(1) / s[j];
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < k; ++j) y[r * sy + j] *= s[j];
  }
}

// ---- softmax, log_softmax of a tensor ---------------------------------------

// softmax along a dim followed by dense dims (in self and out) of `inner`
// elements: blocks of columns, in parallel.
template <typename C>
void softmax_by_columns(const plexus_tensor& self, int64_t dim, const plexus_tensor& out,
                        int64_t inner, bool log) {
  const C* x = sdk::TensorView<const C>(self).data();
  C* y = sdk::TensorView<C>(out).data();
  RowIndex outer;
  for (int32_t d = 0; d < dim; ++d) outer.push(self.sizes[d], self.strides[d], out.strides[d]);
  int64_t n = self.sizes[dim], sx = self.strides[dim], sy = out.strides[dim];
  int64_t blocks = (inner + kSoftmaxColumns - 1) / kSoftmaxColumns;
  parallel_for(outer.count * blocks, n * kSoftmaxColumns * 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t io, oo, c0 = t % blocks * kSoftmaxColumns;
      outer.offsets(t / blocks, io, oo);
      softmax_columns(x + io + c0, sx, y + oo + c0, sy, n, std::min(kSoftmaxColumns, inner - c0),
                      log);
    }
  });
}

template <typename T>
void softmax(const plexus_tensor& self, int64_t dim, const plexus_tensor& out, bool log) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> in(self);
  sdk::TensorView<T> o(out);
  if (in.numel() == 0) return;
  int64_t n = 1, sx = 1, so = 1;
  RowIndex rows;
  for (int32_t d = 0; d < self.ndim; ++d) {
    if (d == dim) {
      n = self.sizes[d];
      sx = self.strides[d];
      so = out.strides[d];
    } else {
      rows.push(self.sizes[d], self.strides[d], out.strides[d]);
    }
  }
  if constexpr (std::is_same_v<T, C>) {
    int32_t after = self.ndim - 1 - static_cast<int32_t>(dim);
    int64_t inner = 1;
    for (int32_t d = self.ndim - after; d < self.ndim; ++d) inner *= self.sizes[d];
    if (self.ndim > 0 && inner > 1 && trailing_dense(self, after) && trailing_dense(out, after))
      return softmax_by_columns<C>(self, dim, out, inner, log);
  }
  bool direct = std::is_same_v<T, C> && sx == 1 && so == 1;
  if constexpr (std::is_same_v<T, float>) {
    if (direct && has_avx512()) {
      parallel_parts(rows.count, n * 8, [&](int64_t, int64_t b, int64_t e) {
        softmax_rows_avx512(in.data(), o.data(), rows, b, e, n, log);
      });
      return;
    }
  }
  std::vector<C> scratch(direct ? 0 : static_cast<size_t>(parts_for(rows.count) * n));
  parallel_parts(rows.count, n * 8, [&](int64_t part, int64_t b, int64_t e) {
    C* buf = scratch.data() + part * n;
    for (int64_t r = b; r < e; ++r) {
      int64_t io, oo;
      rows.offsets(r, io, oo);
      if constexpr (std::is_same_v<T, C>) {
        if (direct) {
          softmax_row(in.data() + io, o.data() + oo, n, log);
          continue;
        }
      }
      gather(in.data() + io, n, sx, buf);
      softmax_row(buf, buf, n, log);
      scatter(buf, n, o.data() + oo, so);
    }
  });
}

// softmax.int_out / log_softmax.int_out(self, dim, dtype, out)
template <bool Log>
void softmax_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(3);
  check_dims(self, call.op);
  int64_t dim = a.integer(1);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<sdk::compute_type_t<T>>)
      softmax<T>(self, dim, out, Log);
    else
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} is not floating", sdk::dtype_name(self.dtype));
  });
}

// softmax_backward (Log false): out = y (g - sum(g y)); log_softmax_backward:
// out = g - exp(y) sum(g). Row by row along dim, in C (float for
// float16/bfloat16), each row gathered into scratch when not dense.
template <typename T, bool Log>
void softmax_backward(const plexus_tensor& grad, const plexus_tensor& y, int64_t dim,
                      const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> gv(grad), yv(y);
  sdk::TensorView<T> o(out);
  if (o.numel() == 0) return;
  int64_t n = 1, sg = 0, sy = 0, so = 0;
  RowIndex by_grad, by_out;  // (grad, y) and (out, out) offsets of each row
  for (int32_t d = 0; d < y.ndim; ++d) {
    if (d == dim) {
      n = y.sizes[d];
      sg = grad.strides[d];
      sy = y.strides[d];
      so = out.strides[d];
    } else {
      by_grad.push(y.sizes[d], grad.strides[d], y.strides[d]);
      by_out.push(y.sizes[d], out.strides[d], out.strides[d]);
    }
  }
  std::vector<C> scratch(static_cast<size_t>(parts_for(by_grad.count) * 3 * n));
  parallel_parts(by_grad.count, 4 * n, [&](int64_t part, int64_t b, int64_t e) {
    C* g = scratch.data() + part * 3 * n;
    C* yy = g + n;
    C* r = yy + n;
    for (int64_t row = b; row < e; ++row) {
      int64_t go, yo, oo, unused;
      by_grad.offsets(row, go, yo);
      by_out.offsets(row, oo, unused);
      gather(gv.data() + go, n, sg, g);
      gather(yv.data() + yo, n, sy, yy);
      C acc = 0;
      if constexpr (Log) {
        for (int64_t i = 0; i < n; ++i) acc += g[i];
        for (int64_t i = 0; i < n; ++i) r[i] = g[i] - std::exp(yy[i]) * acc;
      } else {
        for (int64_t i = 0; i < n; ++i) acc += g[i] * yy[i];
        for (int64_t i = 0; i < n; ++i) r[i] = yy[i] * (g[i] - acc);
      }
      scatter(r, n, o.data() + oo, so);
    }
  });
}

// softmax_backward.out / log_softmax_backward.out(grad_output, output, dim, *, out)
template <bool Log>
void softmax_backward_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& grad = a.tensor(0);
  const plexus_tensor& y = a.tensor(1);
  const plexus_tensor& out = a.tensor(3);
  check_dims(y, call.op);
  int64_t dim = a.integer(2);
  visit<sdk::kFloatingDTypes>(y.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_backward<T, Log>(grad, y, dim, out);
  });
}

}  // namespace

void register_softmax(CpuBackend& b) {
  b.register_kernel<&softmax_backward_out<false>>("softmax_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&softmax_backward_out<true>>("log_softmax_backward.out",
                                                  sdk::kFloatingDTypes);
  b.register_kernel<&softmax_out<false>>("softmax.int_out", sdk::kFloatingDTypes);
  b.register_kernel<&softmax_out<true>>("log_softmax.int_out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
