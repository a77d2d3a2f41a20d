// Half (IEEE binary16) and BFloat16: 2-byte element types that convert to and
// from float and double with round-to-nearest-even, and to float exactly.
// Arithmetic goes through float.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace plexus::sdk {
namespace detail {

// Bit layout of the source types narrow() reads.
template <typename F>
struct IeeeLayout;
template <>
struct IeeeLayout<float> {
  using Bits = uint32_t;
  static constexpr int kExpBits = 8, kMantBits = 23;
};
template <>
struct IeeeLayout<double> {
  using Bits = uint64_t;
  static constexpr int kExpBits = 11, kMantBits = 52;
};

// Rounds m * 2^(e - p) (m > 0, m < 2^(p+1), p >= M) to a format with E exponent
// and M mantissa bits, ties to even; returns its bits without the sign,
// infinity when it overflows.
template <int E, int M>
constexpr uint16_t round_to_format(int e, uint64_t m, int p) {
  constexpr int bias = (1 << (E - 1)) - 1, emin = 1 - bias;
  constexpr int64_t inf = int64_t((1 << E) - 1) << M;
  int et = e < emin ? emin : e;  // below emin the result is subnormal
  int shift = p - M + (et - e);
  uint64_t q = 0;
  if (shift == 0) {
    q = m;
  } else if (shift < 64) {
    q = m >> shift;
    uint64_t rest = m & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
  }
  // q carries the implicit bit for normal results, so a carry out of the
  // mantissa lands in the exponent, as rounding up should.
  int64_t bits = (int64_t(et + bias - 1) << M) + int64_t(q);
  return uint16_t(bits >= inf ? inf : bits);
}

// float or double to a 16-bit format with E exponent and M mantissa bits.
template <int E, int M, typename F>
uint16_t narrow(F x) {
  using L = IeeeLayout<F>;
  using Bits = typename L::Bits;
  constexpr int SE = L::kExpBits, SM = L::kMantBits, sbias = (1 << (SE - 1)) - 1;
  Bits u;
  std::memcpy(&u, &x, sizeof u);
  uint16_t sign = uint16_t(uint16_t(u >> (SE + SM)) << (E + M));
  int biased = int((u >> SM) & ((Bits(1) << SE) - 1));
  uint64_t frac = uint64_t(u & ((Bits(1) << SM) - 1));
  constexpr uint16_t inf = uint16_t(((1u << E) - 1) << M);
  if (biased == (1 << SE) - 1)  // infinity, or NaN (made quiet)
    return uint16_t(sign | inf | (frac ? 1u << (M - 1) : 0u));
  if (biased == 0 && frac == 0) return sign;
  int e = biased ? biased - sbias : 1 - sbias;
  uint64_t m = biased ? frac | (uint64_t(1) << SM) : frac;
  return uint16_t(sign | round_to_format<E, M>(e, m, SM));
}

// Any arithmetic value to a 16-bit format: float and integers (through float,
// as plexus and PyTorch convert them) from float, double directly.
template <int E, int M, typename U>
uint16_t narrow_any(U v) {
  if constexpr (std::is_same_v<U, float> || std::is_integral_v<U>)
    return narrow<E, M>(static_cast<float>(v));
  else
    return narrow<E, M>(static_cast<double>(v));
}

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace detail

// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits.
struct Half {
  uint16_t bits = 0;

  Half() = default;
  // From any arithmetic value, rounded to nearest even (integers via float).
  template <typename U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  Half(U v) : bits(detail::narrow_any<5, 10>(v)) {}
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  // Exact.
  operator float() const {
    uint32_t sign = uint32_t(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu, frac = bits & 0x3ffu;
    if (exp == 0x1f) return detail::bits_to_float(sign | 0x7f800000u | (frac << 13));
    if (exp != 0) return detail::bits_to_float(sign | ((exp + 112) << 23) | (frac << 13));
    float v = std::ldexp(static_cast<float>(frac), -24);  // zero or subnormal
    return sign ? -v : v;
  }
};

// bfloat16: the upper half of a float (1 sign, 8 exponent, 7 mantissa bits).
struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  // From any arithmetic value, rounded to nearest even (integers via float).
  template <typename U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  BFloat16(U v) : bits(detail::narrow_any<8, 7>(v)) {}
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  // Exact.
  operator float() const { return detail::bits_to_float(uint32_t(bits) << 16); }
};

static_assert(sizeof(Half) == 2 && std::is_trivially_copyable_v<Half>);
static_assert(sizeof(BFloat16) == 2 && std::is_trivially_copyable_v<BFloat16>);

}  // namespace plexus::sdk
