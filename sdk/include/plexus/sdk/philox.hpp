// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel Random Numbers: As
// Easy as 1, 2, 3", SC11), and how plexus's random ops turn its words into
// values: the one definition every plugin's kernel, the host's composites and
// the conformance reference share, for host and device code alike.
//
// Note [random streams]: a random op (uniform_, normal_, bernoulli_) gets a
// seed and an offset. Element i of self, counted in row-major order of self's
// sizes whatever its strides, takes the four words
//     philox(counter = {lo(offset + i), hi(offset + i), 0, 0}, key = {lo(seed), hi(seed)})
// so each element is a pure function of (seed, offset + i): every device, any
// number of threads and any layout give the same stream, and a Generator
// advances its offset by numel after each call.
//   uniform:   u = (w0 >> 8) * 2^-24 in [0, 1) (float64: 53 bits of w0, w1),
//              from + u * (to - from) in the compute type.
//   normal:    Box-Muller on u1 in (0, 1] and u2 in [0, 1): mean + std *
//              sqrt(-2 ln u1) cos(2 pi u2), float for float32/16, double for
//              float64.
//   bernoulli: 1 when (w0 >> 8) < threshold(p) = ceil(p * 2^24), else 0: exact
//              on every device, and probability p to within 2^-24.
// uniform with from = 0, to = 1 and bernoulli are bit-identical across
// devices; the rest differ by the rounding of a multiply-add or of the
// device's log and cos.
#pragma once

#include <math.h>  // sqrtf, logf, cosf, sqrt, log, cos: host and device alike

#include <cstdint>
#include <type_traits>

#include "plexus/sdk/half_bits.hpp"  // PLEXUS_SDK_HOST_DEVICE

namespace plexus::sdk {

struct PhiloxWords {
  uint32_t w[4];
};

// Philox4x32 with 10 rounds. Known answers (Random123's kat_vectors):
// counter {0,0,0,0}, key {0,0} gives {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}.
PLEXUS_SDK_HOST_DEVICE constexpr PhiloxWords philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2,
                                                           uint32_t c3, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c0;
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return PhiloxWords{{c0, c1, c2, c3}};
}

// The words of element `index` of a random op called with (seed, offset).
PLEXUS_SDK_HOST_DEVICE constexpr PhiloxWords random_words(uint64_t seed, uint64_t offset,
                                                          uint64_t index) {
  const uint64_t counter = offset + index;
  return philox4x32_10(uint32_t(counter), uint32_t(counter >> 32), 0, 0, uint32_t(seed),
                       uint32_t(seed >> 32));
}

// [0, 1) with 24 bits (float32 and narrower) or 53 bits (float64).
PLEXUS_SDK_HOST_DEVICE constexpr float uniform_float(const PhiloxWords& r) {
  return float(r.w[0] >> 8) * (1.0f / 16777216.0f);
}
PLEXUS_SDK_HOST_DEVICE constexpr double uniform_double(const PhiloxWords& r) {
  return double((uint64_t(r.w[0]) << 21) | (r.w[1] >> 11)) * (1.0 / 9007199254740992.0);
}
// Box-Muller's two uniforms: u1 in (0, 1] (its log is finite), u2 in [0, 1).
PLEXUS_SDK_HOST_DEVICE constexpr float normal_u1_float(const PhiloxWords& r) {
  return float((r.w[0] >> 8) + 1) * (1.0f / 16777216.0f);
}
PLEXUS_SDK_HOST_DEVICE constexpr float normal_u2_float(const PhiloxWords& r) {
  return float(r.w[1] >> 8) * (1.0f / 16777216.0f);
}
PLEXUS_SDK_HOST_DEVICE constexpr double normal_u1_double(const PhiloxWords& r) {
  return double(((uint64_t(r.w[0]) << 21) | (r.w[1] >> 11)) + 1) * (1.0 / 9007199254740992.0);
}
PLEXUS_SDK_HOST_DEVICE constexpr double normal_u2_double(const PhiloxWords& r) {
  return double((uint64_t(r.w[2]) << 21) | (r.w[3] >> 11)) * (1.0 / 9007199254740992.0);
}

// The value of one element of uniform_ and normal_, in compute type C: float
// for float32 and narrower (rounded once more to the dtype by the caller),
// double for float64. Every kernel but the vulkan shader's, and the host's
// composite, compute it here.
template <typename C>
PLEXUS_SDK_HOST_DEVICE C uniform_value(const PhiloxWords& r, C from, C span) {
  if constexpr (std::is_same_v<C, double>)
    return from + uniform_double(r) * span;
  else
    return from + uniform_float(r) * span;
}
template <typename C>
PLEXUS_SDK_HOST_DEVICE C normal_value(const PhiloxWords& r, C mean, C std) {
  if constexpr (std::is_same_v<C, double>)
    return mean + std * (::sqrt(-2.0 * ::log(normal_u1_double(r))) *
                         ::cos(6.283185307179586 * normal_u2_double(r)));
  else
    return mean + std * (::sqrtf(-2.0f * ::logf(normal_u1_float(r))) *
                         ::cosf(6.2831853071795865f * normal_u2_float(r)));
}

// bernoulli's threshold for probability p in [0, 1]: ceil(p * 2^24), so that
// (w0 >> 8) < threshold exactly when u = (w0 >> 8) * 2^-24 < p.
constexpr uint32_t bernoulli_threshold(double p) {
  const double scaled = p * 16777216.0;
  const auto t = uint32_t(scaled);
  return double(t) < scaled ? t + 1 : t;
}
PLEXUS_SDK_HOST_DEVICE constexpr bool bernoulli_draw(const PhiloxWords& r, uint32_t threshold) {
  return (r.w[0] >> 8) < threshold;
}

}  // namespace plexus::sdk
