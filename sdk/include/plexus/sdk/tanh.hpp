// tanh of a float without a libm call, so loops over it vectorize: the cpu
// plugin's float tanh and the fused chains of graph replay (graph/) both use
// it, so a fused chain gives the same bits as the ops one by one. Within 1.5
// ulp of the exact tanh over all floats (glibc's tanhf: about 1.4), checked
// against a float64 reference by tests/sdk/test_tanh.cpp.
//
// |x| < 0.625: the odd Taylor series through x^21 (terms after it are below
// 2e-9 relative there). Above: 1 - 2 / (e^2|x| + 1), where the result is
// above 0.55 so the subtraction loses little, with e^y as 2^n e^r (Cody and
// Waite's two-part ln 2, |r| <= ln2 / 2) and a degree-7 polynomial for e^r.
// Both branches are computed and one is selected, which is what lets the
// compiler vectorize a loop of calls. NaN gives NaN, +-inf gives +-1.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace plexus::sdk {

inline float tanh_f32(float x) {
  const float ax = std::fabs(x);
  const float x2 = x * x;
  // Coefficients of x^(2k+1) in tanh's series: 2^2n (2^2n - 1) B_2n / (2n)!.
  float p = 18888466084.0f / 194896477400625.0f;
  p = p * x2 - 443861162.0f / 1856156927625.0f;
  p = p * x2 + 6404582.0f / 10854718875.0f;
  p = p * x2 - 929569.0f / 638512875.0f;
  p = p * x2 + 21844.0f / 6081075.0f;
  p = p * x2 - 1382.0f / 155925.0f;
  p = p * x2 + 62.0f / 2835.0f;
  p = p * x2 - 17.0f / 315.0f;
  p = p * x2 + 2.0f / 15.0f;
  p = p * x2 - 1.0f / 3.0f;
  p = p * x2 + 1.0f;
  const float small = x * p;

  const float y = 2.0f * ax > 40.0f ? 40.0f : 2.0f * ax;  // tanh(20) is 1; NaN stays NaN
  const float n = std::floor(y * 1.44269504088896341f + 0.5f);
  float r = y - n * 0.693145751953125f;  // ln 2 = 0.693145751953125 + 1.4286068e-6
  r = r - n * 1.42860676533018714e-6f;
  float e = 1.0f / 5040.0f;
  e = e * r + 1.0f / 720.0f;
  e = e * r + 1.0f / 120.0f;
  e = e * r + 1.0f / 24.0f;
  e = e * r + 1.0f / 6.0f;
  e = e * r + 0.5f;
  e = e * r + 1.0f;
  e = e * r + 1.0f;
  const float n_int = n > 0.0f ? n : 0.0f;  // NaN converts as 0 (its NaN is in r)
  const int32_t bits = (static_cast<int32_t>(n_int) + 127) << 23;  // 2^n, n in [0, 58]
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float large = std::copysign(1.0f - 2.0f / (e * scale + 1.0f), x);
  return ax < 0.625f ? small : large;
}

}  // namespace plexus::sdk
