#version 460
// uniform_, normal_, bernoulli_: element i of t[0] (in row-major order of its
// sizes) from Philox4x32-10 with counter s1 + i and key s0 (Note [random
// streams] in plexus/sdk/philox.hpp; GLSL's spelling of its functions, formula
// for formula, so the same words and the same uniforms). The op's parameters:
// uniform from and to - from, normal mean and std (double bits in t[1], t[2]);
// bernoulli's threshold in t[3]. Normal's log and cos compute in double
// (math.glsl), as the cpu computes float64's.
#include "common.glsl"
#include "elementwise.glsl"
#include "types.glsl"
#include "math.glsl"

#define OP_UNIFORM 0
#define OP_NORMAL 1
#define OP_BERNOULLI 2
layout(constant_id = 0) const int OP = OP_UNIFORM;

uvec4 philox4x32_10(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

void main() {
  const uint64_t seed = pc.s0, offset = pc.s1;
  const double p0 = uint64BitsToDouble(pc.t[1]), p1 = uint64BitsToDouble(pc.t[2]);
  const uint threshold = uint(pc.t[3]);
  FOR_EACH_ELEMENT(i) {
    const uint64_t n = offset + uint64_t(i);
    const uvec4 w = philox4x32_10(uvec4(uint(n), uint(n >> 32), 0u, 0u),
                                  uvec2(uint(seed), uint(seed >> 32)));
    const int o = offsets(i).x;
    if (OP == OP_BERNOULLI) {
      STORE(el_t[0], o, C((w.x >> 8) < threshold ? 1 : 0));
    }
#if IS_FLOAT
#ifdef IS_F64
    else if (OP == OP_UNIFORM) {
      double u = double((uint64_t(w.x) << 21) | uint64_t(w.y >> 11)) * (1.0lf / 9007199254740992.0lf);
      precise double v = p0 + u * p1;
      STORE(el_t[0], o, v);
    } else {
      double u1 = double(((uint64_t(w.x) << 21) | uint64_t(w.y >> 11)) + 1ul) *
                  (1.0lf / 9007199254740992.0lf);
      double u2 = double((uint64_t(w.z) << 21) | uint64_t(w.w >> 11)) *
                  (1.0lf / 9007199254740992.0lf);
      double z = sqrt(-2.0lf * log_d(u1)) * sincos_d(6.283185307179586lf * u2, true);
      STORE(el_t[0], o, p0 + p1 * z);
    }
#else
    else if (OP == OP_UNIFORM) {
      float u = float(w.x >> 8) * (1.0 / 16777216.0);
      precise float v = float(p0) + u * float(p1);
      STORE(el_t[0], o, v);
    } else {
      float u1 = float((w.x >> 8) + 1u) * (1.0 / 16777216.0);
      float u2 = float(w.y >> 8) * (1.0 / 16777216.0);
      // float's log and cos, taken from double ones and rounded once.
      float z = sqrt(-2.0 * float(log_d(double(u1)))) * float(sincos_d(double(6.2831855f * u2), true));
      STORE(el_t[0], o, float(p0) + float(p1) * z);
    }
#endif
#endif
  }
}
