// plexus/sdk/tanh.hpp against float64 tanh: every 61st float bit pattern
// (both signs, subnormals, the series' and the exponential's ranges and the
// boundary between them), plus the special values.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "plexus/sdk/tanh.hpp"

namespace {
float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
// Distance in units of the last place of the float nearest the exact value.
double ulps(float got, double exact) {
  float nearest = static_cast<float>(exact);
  double ulp = std::nextafter(std::fabs(nearest), std::numeric_limits<float>::infinity()) -
               std::fabs(nearest);
  if (ulp == 0 || !std::isfinite(ulp)) ulp = std::numeric_limits<float>::denorm_min();
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}
}  // namespace

TEST_CASE("sdk::tanh_f32 is within 1.5 ulp of tanh over a sweep of all floats", "[sdk][math]") {
  double worst = 0;
  float worst_at = 0;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 61) {
    float x = from_bits(static_cast<uint32_t>(b));
    if (!std::isfinite(x)) continue;
    double e = ulps(plexus::sdk::tanh_f32(x), std::tanh(static_cast<double>(x)));
    if (e > worst) {
      worst = e;
      worst_at = x;
    }
  }
  INFO("worst at " << worst_at);
  CHECK(worst < 1.5);
  // Around the switch from the series to the exponential form.
  for (float x = 0.55f; x < 0.7f; x = std::nextafter(x, 1.0f))
    REQUIRE(ulps(plexus::sdk::tanh_f32(x), std::tanh(static_cast<double>(x))) < 1.5);
}

TEST_CASE("sdk::tanh_f32 keeps tanh's special values", "[sdk][math]") {
  using plexus::sdk::tanh_f32;
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(tanh_f32(inf) == 1.0f);
  CHECK(tanh_f32(-inf) == -1.0f);
  CHECK(std::isnan(tanh_f32(std::numeric_limits<float>::quiet_NaN())));
  CHECK(tanh_f32(0.0f) == 0.0f);
  CHECK(std::signbit(tanh_f32(-0.0f)));
  CHECK(tanh_f32(1e-30f) == 1e-30f);
  CHECK(tanh_f32(100.0f) == 1.0f);
  CHECK(tanh_f32(-9.5f) == -1.0f);
}
