// float16 and bfloat16 conversions, checked against values computed from the
// IEEE definitions and a nearest-value search, not against the conversions themselves.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "plexus/half.h"

namespace plexus {
namespace {

// A 16-bit storage format as the tests see it: its values from the definition.
struct Format16 {
  const char* name;
  int mant_bits;        // stored fraction bits
  int min_exp;          // exponent of the smallest normal
  uint16_t max_finite;  // pattern of the largest finite value
};
constexpr Format16 kHalf{"float16", 10, -14, 0x7bff};
constexpr Format16 kBF16{"bfloat16", 7, -126, 0x7f7f};

bool is_nan_bits(const Format16& f, uint16_t b) {
  return (b & 0x7fff) > f.max_finite + 1;
}

// The value a pattern denotes: (-1)^s * 1.frac * 2^e, or 0.frac * 2^min_exp.
double value_of(const Format16& f, uint16_t b) {
  const int exp_field = (b & 0x7fff) >> f.mant_bits;
  const int frac = b & ((1 << f.mant_bits) - 1);
  double mag;
  if ((b & 0x7fff) == f.max_finite + 1) {
    mag = std::numeric_limits<double>::infinity();
  } else if (is_nan_bits(f, b)) {
    mag = std::numeric_limits<double>::quiet_NaN();
  } else if (exp_field == 0) {
    mag = std::ldexp(frac, f.min_exp - f.mant_bits);
  } else {
    mag = std::ldexp((1 << f.mant_bits) + frac, exp_field - 1 + f.min_exp - f.mant_bits);
  }
  return (b & 0x8000) ? -mag : mag;
}

// Round-to-nearest-even oracle: the pattern nearest to x, found by searching the
// sorted non-negative finite values. Past the largest finite value the next
// step (max + ulp, an even pattern) stands for Inf, as IEEE overflow requires.
class Oracle {
 public:
  explicit Oracle(const Format16& f) : max_(f.max_finite) {
    for (uint32_t b = 0; b <= f.max_finite; ++b) values_.push_back(value_of(f, uint16_t(b)));
    values_.push_back(2 * values_[max_] - values_[max_ - 1]);
  }
  uint16_t round(double x) const {
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    // Last value <= a: lo; the next one up: lo + 1.
    auto it = std::upper_bound(values_.begin(), values_.end(), a);
    if (it == values_.end()) return sign | uint16_t(max_ + 1);
    const size_t lo = size_t(it - values_.begin()) - 1;
    const double mid = (values_[lo] + values_[lo + 1]) / 2;  // exact in double
    size_t pick = a < mid ? lo : a > mid ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1);
    if (a == values_[lo]) pick = lo;
    return sign | uint16_t(pick);
  }
  double value(size_t i) const { return values_[i]; }

 private:
  size_t max_;
  std::vector<double> values_;  // values_[b] for b in [0, max_finite], then the step past it
};

const Oracle& half_oracle() {
  static const Oracle o(kHalf);
  return o;
}
const Oracle& bf16_oracle() {
  static const Oracle o(kBF16);
  return o;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Collects failures of a sweep so that one CHECK reports the first few.
struct Mismatches {
  size_t count = 0;
  std::string first;  // the first few, one per line
  void add(const std::string& line) {
    if (count++ < 8) first += line + "\n";
  }
};

void check_none(const Mismatches& m) {
  INFO(m.count << " mismatches, first:\n" << m.first);
  CHECK(m.count == 0);
}

// Every 16-bit pattern widens to the value the definition gives and narrows
// back (from float and from double) to the same bits; NaN stays a NaN of the same sign.
template <typename ToFloat, typename FromFloat, typename FromDouble>
void check_all_patterns(const Format16& f, ToFloat to_float, FromFloat from_float,
                        FromDouble from_double) {
  Mismatches m;
  for (uint32_t i = 0; i <= 0xffff; ++i) {
    const auto b = uint16_t(i);
    const float x = to_float(b);
    const double expect = value_of(f, b);
    const uint16_t back = from_float(x), back_d = from_double(double(x));
    if (is_nan_bits(f, b)) {
      const uint16_t quiet = uint16_t(1u << (f.mant_bits - 1));
      const bool ok = std::isnan(x) && std::signbit(x) == bool(b & 0x8000) &&
                      is_nan_bits(f, back) && is_nan_bits(f, back_d) &&
                      (back & 0x8000) == (b & 0x8000) && (back & quiet) && back == back_d &&
                      // A quiet NaN comes back with its payload.
                      (!(b & quiet) || back == b);
      if (!ok) m.add(hex(b) + " NaN came back as " + hex(back) + " / " + hex(back_d));
      continue;
    }
    if (double(x) != expect || std::signbit(x) != bool(b & 0x8000)) {
      m.add(hex(b) + " widened to " + std::to_string(x));
    }
    if (back != b || back_d != b)
      m.add(hex(b) + " came back as " + hex(back) + " / " + hex(back_d));
  }
  INFO(f.name);
  check_none(m);
}

// Inputs around every rounding boundary: each value, the midpoint to the next
// value, and the neighbours (in T's precision) of both.
template <typename T>
std::vector<T> boundary_inputs(const Oracle& o, size_t max_finite) {
  std::vector<T> xs;
  for (size_t i = 0; i <= max_finite; ++i) {
    const T v = T(o.value(i));
    const T mid = T((o.value(i) + o.value(i + 1)) / 2);
    for (T x : {v, mid}) {
      const T inf = std::numeric_limits<T>::infinity();
      for (T y : {x, std::nextafter(x, -inf), std::nextafter(x, inf)}) {
        xs.push_back(y);
        xs.push_back(-y);
      }
    }
  }
  return xs;
}

template <typename T, typename Convert>
void check_against_oracle(const Oracle& o, const std::vector<T>& xs, Convert convert,
                          const char* what) {
  Mismatches m;
  for (T x : xs) {
    const uint16_t got = convert(x), want = o.round(double(x));
    if (got != want) m.add(std::to_string(double(x)) + " -> " + hex(got) + ", want " + hex(want));
  }
  INFO(what << " over " << xs.size() << " inputs");
  check_none(m);
}

// Random finite floats/doubles: uniform bit patterns, plus magnitudes in the
// 16-bit format's range and a little past it at both ends.
template <typename T, typename Bits>
std::vector<T> random_inputs(int min_exp, int max_exp) {
  std::mt19937_64 rng(12345);
  std::vector<T> xs;
  for (int i = 0; i < (1 << 18); ++i) {
    const T x = std::bit_cast<T>(Bits(rng()));
    if (std::isfinite(x)) xs.push_back(x);
  }
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<int> exp(min_exp, max_exp);
  for (int i = 0; i < (1 << 18); ++i) {
    const T x = T(std::ldexp(unit(rng), exp(rng)));
    xs.push_back(rng() & 1 ? -x : x);
  }
  return xs;
}

const float kInfF = std::numeric_limits<float>::infinity();
const double kInfD = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("every float16 pattern widens exactly and narrows back", "[half]") {
  check_all_patterns(kHalf, half_bits_to_float, float_to_half_bits, double_to_half_bits);
}

TEST_CASE("every bfloat16 pattern widens exactly and narrows back", "[half]") {
  check_all_patterns(kBF16, bfloat16_bits_to_float, float_to_bfloat16_bits,
                     double_to_bfloat16_bits);
}

TEST_CASE("float16 conversions round to nearest even at every boundary", "[half]") {
  const Oracle& o = half_oracle();
  check_against_oracle(o, boundary_inputs<float>(o, kHalf.max_finite), float_to_half_bits,
                       "float -> f16 boundaries");
  check_against_oracle(o, boundary_inputs<double>(o, kHalf.max_finite), double_to_half_bits,
                       "double -> f16 boundaries");
  check_against_oracle(o, random_inputs<float, uint32_t>(-28, 17), float_to_half_bits,
                       "float -> f16 random");
  check_against_oracle(o, random_inputs<double, uint64_t>(-28, 17), double_to_half_bits,
                       "double -> f16 random");
}

TEST_CASE("bfloat16 conversions round to nearest even at every boundary", "[half]") {
  const Oracle& o = bf16_oracle();
  check_against_oracle(o, boundary_inputs<float>(o, kBF16.max_finite), float_to_bfloat16_bits,
                       "float -> bf16 boundaries");
  check_against_oracle(o, boundary_inputs<double>(o, kBF16.max_finite), double_to_bfloat16_bits,
                       "double -> bf16 boundaries");
  check_against_oracle(o, random_inputs<float, uint32_t>(-140, 126), float_to_bfloat16_bits,
                       "float -> bf16 random");
  check_against_oracle(o, random_inputs<double, uint64_t>(-140, 130), double_to_bfloat16_bits,
                       "double -> bf16 random");
}

TEST_CASE("float16 rounding: ties, overflow, subnormals, signed zero", "[half]") {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even 1.0.
  CHECK(float_to_half_bits(1.0f + 0x1p-11f) == 0x3c00);
  // 1 + 3*2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  CHECK(float_to_half_bits(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(float_to_half_bits(1.0f + 0x1p-11f + 0x1p-20f) == 0x3c01);
  CHECK(float_to_half_bits(1.0f) == 0x3c00);
  CHECK(float_to_half_bits(-2.0f) == 0xc000);
  CHECK(float_to_half_bits(0.1f) == 0x2e66);
  // Largest finite 65504; the next step would be 65536, so 65520 is the tie and goes to Inf.
  CHECK(float_to_half_bits(65504.0f) == 0x7bff);
  CHECK(float_to_half_bits(65519.0f) == 0x7bff);
  CHECK(float_to_half_bits(65519.996f) == 0x7bff);
  CHECK(float_to_half_bits(65520.0f) == 0x7c00);
  CHECK(float_to_half_bits(-65520.0f) == 0xfc00);
  CHECK(float_to_half_bits(1e10f) == 0x7c00);
  CHECK(float_to_half_bits(std::numeric_limits<float>::max()) == 0x7c00);
  CHECK(float_to_half_bits(kInfF) == 0x7c00);
  CHECK(float_to_half_bits(-kInfF) == 0xfc00);
  // Subnormals: the smallest is 2^-24; 2^-25 is the tie with 0 and goes to 0.
  CHECK(float_to_half_bits(0x1p-24f) == 0x0001);
  CHECK(float_to_half_bits(0x1p-25f) == 0x0000);
  CHECK(float_to_half_bits(-0x1p-25f) == 0x8000);
  CHECK(float_to_half_bits(std::nextafter(0x1p-25f, 1.0f)) == 0x0001);
  CHECK(float_to_half_bits(3 * 0x1p-25f) == 0x0002);  // 1.5 units: tie to even 2
  CHECK(float_to_half_bits(1023 * 0x1p-24f) == 0x03ff);
  CHECK(float_to_half_bits(1023.5f * 0x1p-24f) == 0x0400);  // tie into the smallest normal
  CHECK(float_to_half_bits(0x1p-14f) == 0x0400);
  CHECK(float_to_half_bits(std::numeric_limits<float>::denorm_min()) == 0x0000);
  CHECK(float_to_half_bits(0.0f) == 0x0000);
  CHECK(float_to_half_bits(-0.0f) == 0x8000);
  CHECK(std::signbit(half_bits_to_float(0x8000)));
  CHECK(half_bits_to_float(0x0001) == 0x1p-24f);
  CHECK(half_bits_to_float(0x03ff) == 1023 * 0x1p-24f);
  CHECK(half_bits_to_float(0x7bff) == 65504.0f);
  CHECK(half_bits_to_float(0xfc00) == -kInfF);
}

TEST_CASE("float16 NaNs stay NaN, quiet, with their sign", "[half]") {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float snan = std::bit_cast<float>(0x7f800001u);  // payload below f16's precision
  for (float x : {qnan, -qnan, snan, -snan}) {
    const uint16_t h = float_to_half_bits(x);
    CHECK((h & 0x7c00) == 0x7c00);
    CHECK((h & 0x0200) != 0);  // quiet bit
    CHECK(bool(h & 0x8000) == std::signbit(x));
    const uint16_t hd = double_to_half_bits(double(x));
    CHECK((hd & 0x7e00) == 0x7e00);
    CHECK(bool(hd & 0x8000) == std::signbit(x));
  }
  // A signalling f16 NaN widens to a quiet float NaN.
  CHECK((std::bit_cast<uint32_t>(half_bits_to_float(0x7c01)) & 0x7fc00000u) == 0x7fc00000u);
  CHECK(std::isnan(half_bits_to_float(0xfe00)));
  CHECK(std::signbit(half_bits_to_float(0xfe00)));
}

TEST_CASE("double -> float16 rounds once, not via float", "[half]") {
  // Just above the tie 1 + 2^-11: float rounds it onto the tie, which then goes
  // down to 1.0; rounded once it goes up to 1 + 2^-10.
  const double above_tie = 1.0 + 0x1p-11 + 0x1p-40;
  REQUIRE(float(above_tie) == 1.0f + 0x1p-11f);
  CHECK(float_to_half_bits(float(above_tie)) == 0x3c00);
  CHECK(double_to_half_bits(above_tie) == 0x3c01);
  // Just below the tie 1 + 3*2^-11: via float it would go up to 1 + 2^-9.
  const double below_tie = 1.0 + 3 * 0x1p-11 - 0x1p-40;
  REQUIRE(float(below_tie) == 1.0f + 3 * 0x1p-11f);
  CHECK(float_to_half_bits(float(below_tie)) == 0x3c02);
  CHECK(double_to_half_bits(below_tie) == 0x3c01);
  // The same in the subnormals and at the overflow threshold.
  const double above_zero_tie = 0x1p-25 + 0x1p-60;
  REQUIRE(float(above_zero_tie) == 0x1p-25f);
  CHECK(double_to_half_bits(above_zero_tie) == 0x0001);
  CHECK(double_to_half_bits(-above_zero_tie) == 0x8001);
  const double below_overflow = 65520.0 - 0x1p-30;
  REQUIRE(float(below_overflow) == 65520.0f);
  CHECK(double_to_half_bits(below_overflow) == 0x7bff);
  CHECK(double_to_half_bits(65520.0) == 0x7c00);
  CHECK(double_to_half_bits(1e300) == 0x7c00);
  CHECK(double_to_half_bits(-kInfD) == 0xfc00);
  CHECK(double_to_half_bits(1e-300) == 0x0000);
  CHECK(double_to_half_bits(-std::numeric_limits<double>::denorm_min()) == 0x8000);
  CHECK(double_to_half_bits(0.1) == 0x2e66);
}

TEST_CASE("bfloat16 rounding: ties, overflow, subnormals, NaN", "[half]") {
  CHECK(float_to_bfloat16_bits(1.0f) == 0x3f80);
  CHECK(float_to_bfloat16_bits(1.0f + 0x1p-8f) == 0x3f80);      // tie to even
  CHECK(float_to_bfloat16_bits(1.0f + 3 * 0x1p-8f) == 0x3f82);  // tie to even, up
  CHECK(float_to_bfloat16_bits(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);
  CHECK(float_to_bfloat16_bits(-0.0f) == 0x8000);
  // Largest finite is (2 - 2^-7) * 2^127; (2 - 2^-8) * 2^127 is the tie with Inf.
  const float max_bf16 = std::ldexp(2.0f - 0x1p-7f, 127);
  const float overflow_tie = std::ldexp(2.0f - 0x1p-8f, 127);
  CHECK(float_to_bfloat16_bits(max_bf16) == 0x7f7f);
  CHECK(float_to_bfloat16_bits(std::nextafter(overflow_tie, 0.0f)) == 0x7f7f);
  CHECK(float_to_bfloat16_bits(overflow_tie) == 0x7f80);
  CHECK(float_to_bfloat16_bits(std::numeric_limits<float>::max()) == 0x7f80);
  CHECK(float_to_bfloat16_bits(-kInfF) == 0xff80);
  // Subnormals: the smallest bf16 subnormal is 2^-133.
  CHECK(float_to_bfloat16_bits(0x1p-133f) == 0x0001);
  CHECK(float_to_bfloat16_bits(0x1p-134f) == 0x0000);
  CHECK(float_to_bfloat16_bits(3 * 0x1p-134f) == 0x0002);
  CHECK(float_to_bfloat16_bits(-std::numeric_limits<float>::denorm_min()) == 0x8000);
  CHECK(float_to_bfloat16_bits(std::numeric_limits<float>::min()) == 0x0080);
  // A float NaN whose payload lies only in the dropped bits must not become Inf.
  for (uint32_t bits : {0x7f800001u, 0xff800001u, 0x7fc00000u, 0xffffffffu}) {
    const uint16_t b = float_to_bfloat16_bits(std::bit_cast<float>(bits));
    CHECK((b & 0x7fc0) == 0x7fc0);
    CHECK((b & 0x8000) == ((bits >> 16) & 0x8000));
  }
  CHECK(std::isnan(bfloat16_bits_to_float(0x7f81)));
}

TEST_CASE("double -> bfloat16 rounds once, not via float", "[half]") {
  const double above_tie = 1.0 + 0x1p-8 + 0x1p-40;
  REQUIRE(float(above_tie) == 1.0f + 0x1p-8f);
  CHECK(float_to_bfloat16_bits(float(above_tie)) == 0x3f80);
  CHECK(double_to_bfloat16_bits(above_tie) == 0x3f81);
  const double above_zero_tie = 0x1p-134 + 0x1p-160;
  CHECK(double_to_bfloat16_bits(above_zero_tie) == 0x0001);
  CHECK(double_to_bfloat16_bits(0x1p-134) == 0x0000);
  CHECK(double_to_bfloat16_bits(std::ldexp(2.0 - 0x1p-8, 127)) == 0x7f80);
  CHECK(double_to_bfloat16_bits(std::ldexp(2.0 - 0x1p-8 - 0x1p-40, 127)) == 0x7f7f);
  CHECK(double_to_bfloat16_bits(1e39) == 0x7f80);
  CHECK(double_to_bfloat16_bits(-1e300) == 0xff80);
  CHECK(double_to_bfloat16_bits(1e-300) == 0x0000);
  const uint16_t nan = double_to_bfloat16_bits(-std::numeric_limits<double>::quiet_NaN());
  CHECK((nan & 0xffc0) == 0xffc0);
}

TEST_CASE("Half and BFloat16 value types convert through the bit functions", "[half]") {
  CHECK(Half(1.5f).bits == 0x3e00);
  CHECK(Half(1.0 + 0x1p-11 + 0x1p-40).bits == 0x3c01);  // the double constructor
  CHECK(float(Half::from_bits(0xc000)) == -2.0f);
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(1.0 + 0x1p-8 + 0x1p-40).bits == 0x3f81);
  CHECK(float(BFloat16::from_bits(0x4049)) == 3.140625f);
}

}  // namespace plexus
