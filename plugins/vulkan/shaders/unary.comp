#version 460
// Math of one tensor: t[0] = f(t[1]); OP picks f. Floating functions compute
// in double (math.glsl) and round once; clamp's bounds are s0 and s1.
#include "common.glsl"
#include "elementwise.glsl"
#include "types.glsl"
#include "math.glsl"

#define OP_NEG 0
#define OP_ABS 1
#define OP_RELU 2
#define OP_CLAMP 3
#define OP_EXP 4
#define OP_LOG 5
#define OP_SQRT 6
#define OP_RSQRT 7
#define OP_SIN 8
#define OP_COS 9
#define OP_TANH 10
#define OP_SIGMOID 11
#define OP_SILU 12
#define OP_GELU 13
#define OP_GELU_TANH 14
layout(constant_id = 0) const int OP = OP_NEG;
// clamp: bit 0 set when there is a lower bound (s0), bit 1 an upper one (s1).
layout(constant_id = 1) const int BOUNDS = 3;

#if IS_FLOAT
C floating(C x) {
  double d = double(x);
  if (OP == OP_EXP) return C(exp_d(d));
  if (OP == OP_LOG) return C(log_d(d));
  if (OP == OP_SQRT) return sqrt(x);
  if (OP == OP_RSQRT) return C(1.0) / sqrt(x);
  if (OP == OP_SIN) return C(sincos_d(d, false));
  if (OP == OP_COS) return C(sincos_d(d, true));
  if (OP == OP_TANH) return C(tanh_d(d));
  if (OP == OP_SIGMOID) return C(sigmoid_d(d));
  if (OP == OP_SILU) return C(d * sigmoid_d(d));
  if (OP == OP_GELU) return C(0.5lf * d * one_plus_erf_d(d * 0.70710678118654752440lf));
  // 0.5 x (1 + tanh(y)) = x sigmoid(2y), without the cancellation for x < 0
  double y = 0.79788456080286535588lf * (d + 0.044715lf * d * d * d);
  return C(d * sigmoid_d(2.0lf * y));
}
#endif

C apply(C x, C lo, C hi) {
  if (OP == OP_NEG) return -x;
#if IS_FLOAT
  if (OP == OP_ABS) return abs(x);
#else
  if (OP == OP_ABS) return x < C(0) ? -x : x;
#endif
  if (OP == OP_RELU) return x < C(0) ? C(0) : x;
  if (OP == OP_CLAMP) {
#if IS_FLOAT
    if (isnan(x)) return x;
    if (((BOUNDS & 1) != 0 && isnan(lo)) || ((BOUNDS & 2) != 0 && isnan(hi))) return C(NAN_F);
#endif
    if ((BOUNDS & 1) != 0 && x < lo) x = lo;
    if ((BOUNDS & 2) != 0 && x > hi) x = hi;
    return x;
  }
#if IS_FLOAT
  return floating(x);
#else
  return x;
#endif
}

void main() {
  C lo = SCALAR(pc.s0), hi = SCALAR(pc.s1);
#ifdef PACKED
  FOR_EACH_QUAD(q) {
    vec4 a = packed_load1(q), r;
    [[unroll]] for (int c = 0; c < 4; ++c) r[c] = apply(a[c], lo, hi);
    packed_store(q, r);
  }
#else
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    STORE(el_t[0], o.x, apply(LOAD(el_t[1], o.y), lo, hi));
  }
#endif
}
