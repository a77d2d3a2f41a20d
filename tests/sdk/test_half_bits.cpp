// plexus/sdk/half_bits.hpp: usable in constant expressions, Note [16-bit float
// rounding and NaN] for every NaN, and its two float-to-bfloat16 formulations
// agreeing bit for bit. Rounding of finite values is checked against an oracle
// in tests/core/test_half.cpp (libplexus's conversions are these).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "plexus/sdk/half_bits.hpp"
#include "support/float_patterns.h"

namespace plexus::sdk {
namespace {

static_assert(float_to_half_bits(1.0f) == 0x3c00);
static_assert(float_to_half_bits(65520.0f) == 0x7c00);
static_assert(double_to_half_bits(-0.5) == 0xb800);
static_assert(half_bits_to_float(0x0001) == 0x1p-24f);
static_assert(float_to_bfloat16_bits(1.0f + 0x1p-8f) == 0x3f80);
static_assert(double_to_bfloat16_bits(3.0) == 0x4040);
static_assert(bfloat16_bits_to_float(0xc040) == -3.0f);

using testing::bits_of;
using testing::float_of;
using testing::float_patterns;

double double_of(uint64_t u) {
  return __builtin_bit_cast(double, u);
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

TEST_CASE("half_bits: float16 NaNs widen quiet, with their sign and payload", "[sdk][half]") {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = uint16_t(b);
    if ((h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0) continue;
    const uint32_t u = bits_of(half_bits_to_float(h));
    INFO(hex(h) << " widened to " << hex(u));
    REQUIRE(u == ((uint32_t(h & 0x8000) << 16) | 0x7fc00000u | (uint32_t(h & 0x3ff) << 13)));
    REQUIRE(float_to_half_bits(float_of(u)) == (h | 0x200));  // back: quiet, same payload
  }
}

TEST_CASE("half_bits: bfloat16 widens to the upper half of a float, NaNs too", "[sdk][half]") {
  for (uint32_t b = 0; b <= 0xffff; ++b)
    REQUIRE(bits_of(bfloat16_bits_to_float(uint16_t(b))) == b << 16);
}

TEST_CASE("half_bits: a float NaN narrows quiet, with its sign and top payload bits",
          "[sdk][half]") {
  for (uint32_t u : float_patterns()) {
    if ((u & 0x7fffffffu) <= 0x7f800000u) continue;
    const uint16_t sign = uint16_t(u >> 16 & 0x8000);
    INFO(hex(u));
    REQUIRE(float_to_half_bits(float_of(u)) == (sign | 0x7e00 | (u >> 13 & 0x3ff)));
    REQUIRE(float_to_bfloat16_bits(float_of(u)) == (sign | 0x7fc0 | (u >> 16 & 0x7f)));
  }
}

TEST_CASE("half_bits: a double NaN narrows quiet, with its sign and top payload bits",
          "[sdk][half]") {
  for (uint64_t payload : {uint64_t(1), uint64_t(0x12345), uint64_t(1) << 51, uint64_t(0x3ff) << 42,
                           (uint64_t(1) << 52) - 1}) {
    for (uint64_t sign : {uint64_t(0), uint64_t(1) << 63}) {
      const double d = double_of(sign | uint64_t(0x7ff) << 52 | payload);
      const uint16_t s = sign ? 0x8000 : 0;
      CHECK(double_to_half_bits(d) == (s | 0x7e00 | (payload >> 42 & 0x3ff)));
      CHECK(double_to_bfloat16_bits(d) == (s | 0x7fc0 | (payload >> 45 & 0x7f)));
    }
  }
}

TEST_CASE("half_bits: float to bfloat16 is the general narrowing, bit for bit", "[sdk][half]") {
  for (uint32_t u : float_patterns()) {
    const uint16_t general =
        half_detail::narrow<uint32_t, 23, 8, 7, 8>(u & 0x7fffffffu, uint16_t((u >> 16) & 0x8000u));
    INFO(hex(u));
    REQUIRE(float_to_bfloat16_bits(float_of(u)) == general);
  }
}

TEST_CASE("half_bits: a float narrows as the same value as a double does", "[sdk][half]") {
  for (uint32_t u : float_patterns()) {
    const float f = float_of(u);
    INFO(hex(u));
    REQUIRE(float_to_half_bits(f) == double_to_half_bits(double(f)));
    REQUIRE(float_to_bfloat16_bits(f) == double_to_bfloat16_bits(double(f)));
  }
}

}  // namespace
}  // namespace plexus::sdk
