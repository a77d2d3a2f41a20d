// The cpu plugin's float16/bfloat16 element types (plugins/cpu/elementwise.h)
// and the F16C instructions its loops use, scalar and 8 wide: the same bits as
// plexus/sdk/half_bits.hpp, every float16 pattern widened and a sweep of float
// patterns (NaNs, infinities, subnormals, rounding ties) narrowed.
#include <immintrin.h>

#include <catch2/catch.hpp>
#include <cstdint>

#include "plugins/cpu/elementwise.h"
#include "support/float_patterns.h"

namespace plexus::cpu {
namespace {

using testing::bits_of;
using testing::float_of;

TEST_CASE("cpu float16 widens every pattern as half_bits does", "[half]") {
  alignas(16) uint16_t in[8];
  alignas(32) float wide[8];
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    F16 h;
    h.bits = uint16_t(b);
    const uint32_t want = bits_of(sdk::half_bits_to_float(h.bits));
    INFO(b);
    REQUIRE(bits_of(float(h)) == want);
    REQUIRE(bits_of(_cvtsh_ss(h.bits)) == want);
    in[b % 8] = h.bits;
    if (b % 8 == 7) {
      _mm256_store_ps(wide, _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(in))));
      for (uint32_t i = 0; i < 8; ++i)
        REQUIRE(bits_of(wide[i]) == bits_of(sdk::half_bits_to_float(in[i])));
    }
  }
}

TEST_CASE("cpu float16 and bfloat16 narrow floats as half_bits does", "[half]") {
  alignas(32) float in[8];
  alignas(16) uint16_t narrow[8];
  size_t k = 0;
  for (uint32_t u : testing::float_patterns()) {
    const float f = float_of(u);
    INFO(u);
    REQUIRE(F16(f).bits == sdk::float_to_half_bits(f));
    REQUIRE(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT) == sdk::float_to_half_bits(f));
    REQUIRE(BF16(f).bits == sdk::float_to_bfloat16_bits(f));
    REQUIRE(F16(double(f)).bits == sdk::double_to_half_bits(double(f)));
    in[k++ % 8] = f;
    if (k % 8 == 0) {
      _mm_store_si128(reinterpret_cast<__m128i*>(narrow),
                      _mm256_cvtps_ph(_mm256_load_ps(in), _MM_FROUND_TO_NEAREST_INT));
      for (uint32_t i = 0; i < 8; ++i) REQUIRE(narrow[i] == sdk::float_to_half_bits(in[i]));
    }
  }
}

}  // namespace
}  // namespace plexus::cpu
