// Float bit patterns for checking conversions to the 2-byte floats bit for bit:
// every path (NaNs of many payloads, infinities, zeros, subnormals, every
// exponent with mantissas at and around the rounding points) and a stride
// through all the rest.
#pragma once

#include <cstdint>
#include <vector>

namespace plexus::testing {

inline std::vector<uint32_t> float_patterns() {
  std::vector<uint32_t> us;
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint32_t e = 0; e < 256; ++e) {
      for (uint32_t m : {0u, 1u, 2u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u,
                         0x8001u, 0x10000u, 0x18000u, 0x200000u, 0x400000u, 0x400001u, 0x7fffffu})
        us.push_back(sign | e << 23 | m);
    }
  }
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 65537) us.push_back(uint32_t(u));
  return us;
}

inline uint32_t bits_of(float f) {
  return __builtin_bit_cast(uint32_t, f);
}
inline float float_of(uint32_t u) {
  return __builtin_bit_cast(float, u);
}

}  // namespace plexus::testing
