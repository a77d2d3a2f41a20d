// copy_ (every dtype to every dtype, any layout) and fill_. Dims are merged
// first, then: one source value is a fill; a dense same-dtype copy is a
// parallel memcpy; a permuted layout (the operands contiguous along different
// dims, as when copying a transposed view) is copied in cache blocks and
// tiles, with AVX2 8x8 transposes for 4-byte elements; the rest converts row
// by row. Conversions are the host's: NaN to 0 and saturation for floating to
// integer, a bool source byte read as != 0.
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>

#include "elementwise.h"
#include "kernels.h"

namespace plexus::cpu {
namespace {

// The type a source of dtype S is read as: bool as its byte, so that any
// nonzero byte is true without undefined behaviour.
template <typename S>
using stored_t = std::conditional_t<std::is_same_v<S, bool>, uint8_t, S>;

// A source element converted to D as the host's copy_ converts it.
template <typename D, typename S>
D load(stored_t<S> v) {
  if constexpr (std::is_same_v<S, bool>)
    return v != 0;  // any nonzero byte is true, and bool converts to D exactly
  else
    return convert_value<D>(v);
}

// The unsigned integer of N bytes: a same-dtype copy moves bits, not values.
template <size_t N>
using bits_t = std::conditional_t<
    N == 1, uint8_t,
    std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;

// The joint layout of dst (operand kDst) and src (kSrc), collapsed
// (plexus/sdk/layout.hpp): outermost first, strides in elements.
using Layout = sdk::CollapsedDims<2>;
constexpr int kDst = 0, kSrc = 1;

Layout merge_dims(const plexus_tensor& dst, const plexus_tensor& src) {
  Layout l;
  if (!sdk::collapse_dims(dst.ndim, dst.sizes, {dst.strides, src.strides}, l))
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} dims (at most {})", dst.ndim, sdk::kMaxIterDims);
  return l;
}

// memcpy split across the threads in 4 KiB pieces.
void parallel_memcpy(void* dst, const void* src, int64_t nbytes) {
  constexpr int64_t kPiece = 4096;
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  parallel_for((nbytes + kPiece - 1) / kPiece, kPiece / 4, [&](int64_t b, int64_t e) {
    std::memcpy(d + b * kPiece, s + b * kPiece, std::min(e * kPiece, nbytes) - b * kPiece);
  });
}

// Sets every element of the view (d, l's dst strides) to v.
template <typename D>
void fill_layout(D* d, const Layout& l, D v) {
  if (l.ndim == 0 || (l.ndim == 1 && l.strides[kDst][0] == 1)) {
    parallel_for(l.numel, 1, [&](int64_t b, int64_t e) { std::fill(d + b, d + e, v); });
    return;
  }
  map([v] { return v; }, sdk::TensorView<D>(d, l.ndim, l.sizes, l.strides[kDst]));
}

// Permuted copies: dst(i, j) = d[i + j * db] from src(i, j) = s[i * sa + j],
// i running along the dim where dst is contiguous and j along the one where
// src is. The threads take blocks of kBlock x kBlock; each block is copied in
// tiles whose rows are whole 64-byte lines on both sides, and the src lines of
// a tile a few ahead are prefetched: a column walk is invisible to the
// hardware prefetcher, and waiting on it halves the speed.
struct Permuted {
  int64_t na, nb;  // sizes along i and j
  int64_t sa, db;  // src stride along i, dst stride along j (the other two are 1)
};

constexpr int64_t kBlock = 256;
constexpr int64_t kPrefetchTiles = 4;
// Above this many bytes of output, register transposes write around the caches:
// the result would not stay in them anyway, and reading dst lines first to
// write them costs a third of the traffic.
constexpr int64_t kStreamBytes = int64_t{8} << 20;

// Tile side in elements: a src row segment is one cache line.
template <typename S>
constexpr int64_t kTile = std::max<int64_t>(8, 64 / static_cast<int64_t>(sizeof(stored_t<S>)));

// True for the copies with a register transpose: 2-, 4- and 8-byte bits.
template <typename D, typename S>
inline constexpr bool kHasSimdTile =
#if defined(__AVX2__)
    std::is_same_v<D, S> &&
    (std::is_same_v<D, uint16_t> || std::is_same_v<D, uint32_t> || std::is_same_v<D, uint64_t>);
#else
    false;
#endif

#if defined(__AVX2__)
// Register transposes of a k x k block: d[i + j * db] = s[i * sa + j], for
// 2-byte (8x8), 4-byte (8x8) and 8-byte (4x4) elements.
inline void transpose_block(uint16_t* d, int64_t db, const uint16_t* s, int64_t sa) {
  auto in = [&](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * sa)); };
  __m128i b0 = _mm_unpacklo_epi16(in(0), in(1)), b1 = _mm_unpackhi_epi16(in(0), in(1));
  __m128i b2 = _mm_unpacklo_epi16(in(2), in(3)), b3 = _mm_unpackhi_epi16(in(2), in(3));
  __m128i b4 = _mm_unpacklo_epi16(in(4), in(5)), b5 = _mm_unpackhi_epi16(in(4), in(5));
  __m128i b6 = _mm_unpacklo_epi16(in(6), in(7)), b7 = _mm_unpackhi_epi16(in(6), in(7));
  __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
  __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
  __m128i c4 = _mm_unpacklo_epi32(b4, b6), c5 = _mm_unpackhi_epi32(b4, b6);
  __m128i c6 = _mm_unpacklo_epi32(b5, b7), c7 = _mm_unpackhi_epi32(b5, b7);
  auto out = [&](int k, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * db), v); };
  out(0, _mm_unpacklo_epi64(c0, c4));
  out(1, _mm_unpackhi_epi64(c0, c4));
  out(2, _mm_unpacklo_epi64(c1, c5));
  out(3, _mm_unpackhi_epi64(c1, c5));
  out(4, _mm_unpacklo_epi64(c2, c6));
  out(5, _mm_unpackhi_epi64(c2, c6));
  out(6, _mm_unpacklo_epi64(c3, c7));
  out(7, _mm_unpackhi_epi64(c3, c7));
}
inline void transpose_block(uint32_t* d, int64_t db, const uint32_t* s, int64_t sa) {
  auto in = [&](int k) { return _mm256_loadu_ps(reinterpret_cast<const float*>(s + k * sa)); };
  __m256 t0 = _mm256_unpacklo_ps(in(0), in(1)), t1 = _mm256_unpackhi_ps(in(0), in(1));
  __m256 t2 = _mm256_unpacklo_ps(in(2), in(3)), t3 = _mm256_unpackhi_ps(in(2), in(3));
  __m256 t4 = _mm256_unpacklo_ps(in(4), in(5)), t5 = _mm256_unpackhi_ps(in(4), in(5));
  __m256 t6 = _mm256_unpacklo_ps(in(6), in(7)), t7 = _mm256_unpackhi_ps(in(6), in(7));
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
  __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
  __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
  __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
  auto out = [&](int k, __m256 v) { _mm256_storeu_ps(reinterpret_cast<float*>(d + k * db), v); };
  out(0, _mm256_permute2f128_ps(u0, u4, 0x20));
  out(1, _mm256_permute2f128_ps(u1, u5, 0x20));
  out(2, _mm256_permute2f128_ps(u2, u6, 0x20));
  out(3, _mm256_permute2f128_ps(u3, u7, 0x20));
  out(4, _mm256_permute2f128_ps(u0, u4, 0x31));
  out(5, _mm256_permute2f128_ps(u1, u5, 0x31));
  out(6, _mm256_permute2f128_ps(u2, u6, 0x31));
  out(7, _mm256_permute2f128_ps(u3, u7, 0x31));
}
inline void transpose_block(uint64_t* d, int64_t db, const uint64_t* s, int64_t sa) {
  auto in = [&](int k) { return _mm256_loadu_pd(reinterpret_cast<const double*>(s + k * sa)); };
  __m256d t0 = _mm256_unpacklo_pd(in(0), in(1)), t1 = _mm256_unpackhi_pd(in(0), in(1));
  __m256d t2 = _mm256_unpacklo_pd(in(2), in(3)), t3 = _mm256_unpackhi_pd(in(2), in(3));
  auto out = [&](int k, __m256d v) { _mm256_storeu_pd(reinterpret_cast<double*>(d + k * db), v); };
  out(0, _mm256_permute2f128_pd(t0, t2, 0x20));
  out(1, _mm256_permute2f128_pd(t1, t3, 0x20));
  out(2, _mm256_permute2f128_pd(t0, t2, 0x31));
  out(3, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// A full tile of B-sized elements (64-byte rows), transposed block by block
// into a buffer, then written out as whole lines (non-temporal when stream).
template <typename B>
void transpose_tile(B* d, int64_t db, const B* s, int64_t sa, bool stream) {
  constexpr int64_t T = 64 / sizeof(B), K = sizeof(B) == 8 ? 4 : 8;
  alignas(64) B buf[T * T];  // buf[j * T + i]
  for (int64_t i = 0; i < T; i += K)
    for (int64_t j = 0; j < T; j += K) transpose_block(buf + i + j * T, T, s + i * sa + j, sa);
  for (int64_t j = 0; j < T; ++j) {
    const auto* row = reinterpret_cast<const __m256i*>(buf + j * T);
    auto* o = reinterpret_cast<__m256i*>(d + j * db);
    if (stream) {
      _mm256_stream_si256(o, _mm256_load_si256(row));
      _mm256_stream_si256(o + 1, _mm256_load_si256(row + 1));
    } else {
      _mm256_storeu_si256(o, _mm256_load_si256(row));
      _mm256_storeu_si256(o + 1, _mm256_load_si256(row + 1));
    }
  }
}
#endif

// One tile of ni x nj elements at d and s: a register transpose for full
// tiles of 2-, 4- and 8-byte elements of one type; otherwise src rows are read
// whole into a buffer, then written out transposed, converting S to D.
template <typename D, typename S>
void copy_tile(D* d, const stored_t<S>* s, const Permuted& p, int64_t ni, int64_t nj, bool stream) {
  constexpr int64_t T = kTile<S>;
#if defined(__AVX2__)
  if constexpr (kHasSimdTile<D, S>) {
    if (ni == T && nj == T) {
      bool aligned = reinterpret_cast<uintptr_t>(d) % 32 == 0 && p.db * sizeof(D) % 32 == 0;
      transpose_tile(d, p.db, s, p.sa, stream && aligned);
      return;
    }
  }
#endif
  stored_t<S> buf[T * T];  // buf[i * T + j]
  for (int64_t i = 0; i < ni; ++i)
    for (int64_t j = 0; j < nj; ++j) buf[i * T + j] = s[i * p.sa + j];
  for (int64_t j = 0; j < nj; ++j)
    for (int64_t i = 0; i < ni; ++i) d[i + j * p.db] = load<D, S>(buf[i * T + j]);
}

// The block [i0, i1) x [j0, j1) tile by tile, j outer so that dst rows are
// written in order, prefetching the src lines of the tile kPrefetchTiles ahead.
template <typename D, typename S>
void copy_block(D* d, const stored_t<S>* s, const Permuted& p, int64_t i0, int64_t i1, int64_t j0,
                int64_t j1, bool stream) {
  constexpr int64_t T = kTile<S>;
  for (int64_t j = j0; j < j1; j += T) {
    for (int64_t i = i0; i < i1; i += T) {
      int64_t pi = i + kPrefetchTiles * T, pj = j;
      if (pi >= i1) {  // the tile kPrefetchTiles ahead is in the next column of tiles
        pi -= i1 - i0;
        pj += T;
      }
      if (pj < j1)
        for (int64_t r = pi; r < std::min(pi + T, i1); ++r) __builtin_prefetch(s + r * p.sa + pj);
      copy_tile<D, S>(d + i + j * p.db, s + i * p.sa + j, p, std::min(T, i1 - i),
                      std::min(T, j1 - j), stream);
    }
  }
}

// Finds the dims a (dst contiguous) and b (src contiguous) of a permuted copy
// worth blocking; false when there are none.
bool find_transpose_dims(const Layout& l, int32_t& a, int32_t& b) {
  constexpr int64_t kMinSize = 8;  // below this a row-by-row copy stays in cache anyway
  a = b = -1;
  for (int32_t k = l.ndim - 1; k >= 0; --k) {
    if (a < 0 && l.strides[kDst][k] == 1) a = k;
    if (b < 0 && l.strides[kSrc][k] == 1) b = k;
  }
  return a >= 0 && b >= 0 && a != b && l.sizes[a] >= kMinSize && l.sizes[b] >= kMinSize;
}

// The permuted copy over dims a and b of l, for every index of the others;
// the threads split (outer index, block row, block column) in that order.
template <typename D, typename S>
void copy_transposed(D* d, const stored_t<S>* s, const Layout& l, int32_t a, int32_t b) {
  int32_t outer[sdk::kMaxIterDims], nouter = 0;
  for (int32_t k = 0; k < l.ndim; ++k)
    if (k != a && k != b) outer[nouter++] = k;
  Permuted p{l.sizes[a], l.sizes[b], l.strides[kSrc][a], l.strides[kDst][b]};
  int64_t bi = (p.na + kBlock - 1) / kBlock, bj = (p.nb + kBlock - 1) / kBlock;
  int64_t items = l.numel / (p.na * p.nb) * bi * bj;
  bool stream = kHasSimdTile<D, S> && l.numel * static_cast<int64_t>(sizeof(D)) >= kStreamBytes;
  // Cost per item: the elements it copies on average (a block is often smaller
  // than kBlock^2: small transposes stay on the calling thread).
  parallel_for(items, std::max<int64_t>(1, l.numel / items), [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      int64_t i0 = item % bi * kBlock, j0 = item / bi % bj * kBlock, rest = item / (bi * bj);
      int64_t doff = 0, soff = 0;
      for (int32_t o = nouter - 1; o >= 0; --o) {
        int32_t k = outer[o];
        doff += rest % l.sizes[k] * l.strides[kDst][k];
        soff += rest % l.sizes[k] * l.strides[kSrc][k];
        rest /= l.sizes[k];
      }
      copy_block<D, S>(d + doff, s + soff, p, i0, std::min(i0 + kBlock, p.na), j0,
                       std::min(j0 + kBlock, p.nb), stream);
    }
#if defined(__AVX2__)
    if (stream) _mm_sfence();  // order the non-temporal stores before the threads join
#endif
  });
}

// Copies src (d's layout l.strides[kSrc]) into dst (l.strides[kDst]), converting S to D.
template <typename D, typename S>
void copy_layout(D* d, const stored_t<S>* s, const Layout& l) {
  if (l.numel == 0) return;
  bool broadcast = true;  // one source value for every element
  for (int32_t k = 0; k < l.ndim; ++k) broadcast = broadcast && l.strides[kSrc][k] == 0;
  if (broadcast) {
    fill_layout(d, l, load<D, S>(s[0]));
    return;
  }
  if (l.ndim == 1 && l.strides[kDst][0] == 1 && l.strides[kSrc][0] == 1) {
    if constexpr (std::is_same_v<D, stored_t<S>>) {
      parallel_memcpy(d, s, l.numel * static_cast<int64_t>(sizeof(D)));
    } else {
      parallel_for(l.numel, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = load<D, S>(s[i]);
      });
    }
    return;
  }
  int32_t a, b;
  if (find_transpose_dims(l, a, b)) {
    copy_transposed<D, S>(d, s, l, a, b);
    return;
  }
  map([](stored_t<S> v) { return load<D, S>(v); },
      sdk::TensorView<D>(d, l.ndim, l.sizes, l.strides[kDst]),
      sdk::TensorView<const stored_t<S>>(s, l.ndim, l.sizes, l.strides[kSrc]));
}

// Element [0, ..., 0] of t as a T*.
template <typename T>
T* data_of(const plexus_tensor& t) {
  return static_cast<T*>(t.storage) + t.offset;
}

// copy_(self, src, non_blocking): src is broadcast to self's shape, any dtype.
void copy_(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& src = args.tensor(1);
  Layout l = merge_dims(self, src);
  bool same_dtype = self.dtype == src.dtype;
  // Copying a tensor onto itself changes nothing.
  if (same_dtype && self.storage == src.storage && self.offset == src.offset &&
      std::equal(self.strides, self.strides + self.ndim, src.strides))
    return;
  // Same dtype: move bits. Not for bool, whose bytes are normalized to 0 and 1.
  if (same_dtype && self.dtype != PLEXUS_DTYPE_BOOL) {
    sdk::visit_dtype(self.dtype, [&](auto tag) {
      using B = bits_t<sizeof(typename decltype(tag)::type)>;
      copy_layout<B, B>(data_of<B>(self), data_of<const B>(src), l);
    });
    return;
  }
  sdk::visit_dtype(self.dtype, [&](auto to) {
    using D = elem_t<typename decltype(to)::type>;
    sdk::visit_dtype(src.dtype, [&](auto from) {
      using S = elem_t<typename decltype(from)::type>;
      copy_layout<D, S>(data_of<D>(self), data_of<const stored_t<S>>(src), l);
    });
  });
}

// fill_.Scalar(self, value)
void fill_(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  sdk::Scalar value = args.scalar(1);
  Layout l = merge_dims(self, self);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (l.numel > 0) fill_layout(data_of<T>(self), l, scalar_to<T>(value));
  });
}

}  // namespace

void register_copy(CpuBackend& b) {
  b.register_kernel<&copy_>("copy_", sdk::kAllDTypes);
  b.register_kernel<&fill_>("fill_.Scalar", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
