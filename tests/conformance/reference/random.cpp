#include "reference/random.h"

#include <cmath>

namespace plexus::ref {
namespace {

// The words of element k of a call with (seed, offset).
std::array<uint32_t, 4> words(uint64_t seed, uint64_t offset, int64_t k) {
  const uint64_t n = offset + static_cast<uint64_t>(k);
  return philox4x32_10(
      {static_cast<uint32_t>(n & 0xffffffffu), static_cast<uint32_t>(n >> 32), 0, 0},
      {static_cast<uint32_t>(seed & 0xffffffffu), static_cast<uint32_t>(seed >> 32)});
}

// A uniform number from a count of 2^-bits steps.
double steps(uint64_t count, int bits) {
  return std::ldexp(static_cast<double>(count), -bits);
}
uint64_t top53(uint32_t hi, uint32_t lo) {
  return (static_cast<uint64_t>(hi) << 21) | (lo >> 11);
}

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  const uint64_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key schedule: add the Weyl constants before each later round
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    const uint64_t a = m0 * ctr[0], b = m1 * ctr[2];
    ctr = {static_cast<uint32_t>(b >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(b),
           static_cast<uint32_t>(a >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(a)};
  }
  return ctr;
}

Tensor uniform(DType dtype, const Sizes& sizes, double from, double to, uint64_t seed,
               uint64_t offset) {
  Tensor t(dtype, sizes);
  for (int64_t k = 0; k < t.numel(); ++k) {
    auto w = words(seed, offset, k);
    double u = dtype == DType::F64 ? steps(top53(w[0], w[1]), 53) : steps(w[0] >> 8, 24);
    t.set_float(k, from + u * (to - from));
  }
  return t;
}

Tensor normal(DType dtype, const Sizes& sizes, double mean, double std, uint64_t seed,
              uint64_t offset) {
  const double pi = std::acos(-1.0);
  Tensor t(dtype, sizes);
  for (int64_t k = 0; k < t.numel(); ++k) {
    auto w = words(seed, offset, k);
    double u1, u2;
    if (dtype == DType::F64) {
      u1 = steps(top53(w[0], w[1]) + 1, 53);
      u2 = steps(top53(w[2], w[3]), 53);
    } else {
      u1 = steps((w[0] >> 8) + 1, 24);
      u2 = steps(w[1] >> 8, 24);
    }
    t.set_float(k, mean + std * std::sqrt(-2 * std::log(u1)) * std::cos(2 * pi * u2));
  }
  return t;
}

Tensor bernoulli(DType dtype, const Sizes& sizes, double p, uint64_t seed, uint64_t offset) {
  Tensor t(dtype, sizes);
  for (int64_t k = 0; k < t.numel(); ++k) {
    // u = (w0 >> 8) 2^-24 is below p: compared exactly in double.
    bool one = steps(words(seed, offset, k)[0] >> 8, 24) < p;
    if (is_floating(dtype))
      t.set_float(k, one ? 1 : 0);
    else
      t.set_int(k, one ? 1 : 0);
  }
  return t;
}

}  // namespace plexus::ref
