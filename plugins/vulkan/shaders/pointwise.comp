#version 460
// Fused pointwise ops: lerp (t[1] + w (t[2] - t[1]), w = s0), addcmul
// (t[1] + s0 t[2] t[3]), addcdiv (t[1] + s0 t[2] / t[3]).
#include "common.glsl"
#include "elementwise.glsl"
#include "types.glsl"

#define OP_LERP 0
#define OP_ADDCMUL 1
#define OP_ADDCDIV 2
layout(constant_id = 0) const int OP = OP_LERP;

C apply(C s, C a, C b, C v) {
#if IS_FLOAT
  if (OP == OP_LERP) return abs(v) < C(0.5) ? s + v * (a - s) : a - (a - s) * (C(1) - v);
  if (OP == OP_ADDCDIV) return s + v * a / b;
#endif
  return s + v * a * b;
}

void main() {
  C v = SCALAR(pc.s0);
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    C b = OP == OP_LERP ? C(0) : LOAD(el_t[3], o.w);
    STORE(el_t[0], o.x, apply(LOAD(el_t[1], o.y), LOAD(el_t[2], o.z), b, v));
  }
}
