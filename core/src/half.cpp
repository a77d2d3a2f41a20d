// float16 and bfloat16 conversions, rounded once to nearest with ties to even,
// working on the IEEE bit patterns of the wider type.
#include "plexus/half.h"

#include <bit>

namespace plexus {

namespace {

// m / 2^shift rounded to nearest, ties to even (0 < shift < 64).
constexpr uint64_t shift_round_even(uint64_t m, int shift) {
  const uint64_t kept = m >> shift;
  const uint64_t rest = m & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  return kept + (rest > half || (rest == half && (kept & 1)));
}

// A binary floating-point format, described by its field widths.
struct Format {
  int mant_bits;  // stored fraction bits
  int exp_bits;
  constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
  constexpr uint64_t exp_mask() const { return (uint64_t{1} << exp_bits) - 1; }
};

constexpr Format kF16{10, 5};
constexpr Format kBF16{7, 8};
constexpr Format kF32{23, 8};
constexpr Format kF64{52, 11};

// Narrows the magnitude bits of a value in format `From` to the bits of format
// `To` with sign bit `sign` (0 or 0x8000), rounding once. `To` must have no more
// fraction or exponent bits than `From`.
template <Format From, Format To>
uint16_t narrow(uint64_t abs_bits, uint16_t sign) {
  constexpr int kDrop = From.mant_bits - To.mant_bits;
  constexpr uint16_t kInf = static_cast<uint16_t>(To.exp_mask() << To.mant_bits);
  const uint64_t exp = abs_bits >> From.mant_bits;
  const uint64_t frac = abs_bits & ((uint64_t{1} << From.mant_bits) - 1);
  if (exp == From.exp_mask()) {
    if (frac == 0) return sign | kInf;
    // NaN: keep the top of the payload and set the quiet bit.
    return sign | kInf |
           static_cast<uint16_t>((uint64_t{1} << (To.mant_bits - 1)) | (frac >> kDrop));
  }
  // Rebias; values in To's normal range keep a positive exponent field.
  const int64_t to_exp = static_cast<int64_t>(exp) - From.bias() + To.bias();
  if (to_exp >= 1) {
    // Rounding may carry into the exponent, and past the largest finite value
    // into the Inf pattern, exactly as IEEE rounding requires.
    const uint64_t r = shift_round_even((uint64_t(to_exp) << From.mant_bits) | frac, kDrop);
    return sign | static_cast<uint16_t>(r >= kInf ? kInf : r);
  }
  // Subnormal (or zero) in To: the significand, scaled so that one unit is To's
  // smallest subnormal; a carry out of the subnormals gives the smallest normal.
  if (exp == 0) {
    // From's own subnormals and zero: frac units of 2^(1 - From.bias - From.mant_bits).
    constexpr int kSubShift = kDrop + From.bias() - To.bias();
    if constexpr (kSubShift > From.mant_bits) {
      return sign;  // all below half of To's smallest subnormal
    } else {
      return sign | static_cast<uint16_t>(shift_round_even(frac, kSubShift));
    }
  }
  const int shift = kDrop + 1 - static_cast<int>(to_exp);
  if (shift > From.mant_bits + 1) return sign;  // below half of To's smallest subnormal
  const uint64_t significand = frac | (uint64_t{1} << From.mant_bits);
  return sign | static_cast<uint16_t>(shift_round_even(significand, shift));
}

}  // namespace

uint16_t float_to_half_bits(float f) {
  const auto u = std::bit_cast<uint32_t>(f);
  return narrow<kF32, kF16>(u & 0x7fffffffu, static_cast<uint16_t>((u >> 16) & 0x8000u));
}

uint16_t double_to_half_bits(double d) {
  const auto u = std::bit_cast<uint64_t>(d);
  return narrow<kF64, kF16>(u & ~(uint64_t{1} << 63), static_cast<uint16_t>((u >> 48) & 0x8000u));
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t frac = h & 0x3ffu;
  if (exp == 0x1f) {
    // Inf, or NaN made quiet with its payload kept.
    return std::bit_cast<float>(sign | 0x7f800000u | (frac << 13) | (frac ? 0x400000u : 0u));
  }
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (frac << 13));
  if (frac == 0) return std::bit_cast<float>(sign);
  // Subnormal frac * 2^-24: normalize so the leading 1 becomes the implicit bit.
  const int top = std::bit_width(frac) - 1;
  const uint32_t fexp = static_cast<uint32_t>(top + 127 - 24);
  return std::bit_cast<float>(sign | (fexp << 23) | ((frac << (23 - top)) & 0x7fffffu));
}

uint16_t float_to_bfloat16_bits(float f) {
  const auto u = std::bit_cast<uint32_t>(f);
  return narrow<kF32, kBF16>(u & 0x7fffffffu, static_cast<uint16_t>((u >> 16) & 0x8000u));
}

uint16_t double_to_bfloat16_bits(double d) {
  const auto u = std::bit_cast<uint64_t>(d);
  return narrow<kF64, kBF16>(u & ~(uint64_t{1} << 63), static_cast<uint16_t>((u >> 48) & 0x8000u));
}

}  // namespace plexus
