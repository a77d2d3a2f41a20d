#version 460
// Binary arithmetic: t[0] = t[1] op t[2]; OP picks the operation, s0 holds
// alpha (add, sub). Float16/bfloat16 compute in float; integers wrap.
#include "common.glsl"
#include "elementwise.glsl"
#include "types.glsl"
#include "math.glsl"

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_DIV_TRUNC 4
#define OP_DIV_FLOOR 5
#define OP_POW 6
#define OP_MAX 7
#define OP_MIN 8
layout(constant_id = 0) const int OP = OP_ADD;
// 1: the second operand is the scalar in s1 instead of tensor t[2].
layout(constant_id = 1) const int SCALAR_B = 0;

#if !IS_FLOAT
C int_pow(C base, C e) {
  if (e < C(0)) {
    if (base == C(1)) return C(1);
#ifdef IS_SIGNED
    if (base == C(-1)) return (e % C(2)) != C(0) ? C(-1) : C(1);
#endif
    return C(0);
  }
  C r = C(1);
  while (e != C(0)) {
    if ((e & C(1)) != C(0)) r *= base;
    e >>= C(1);
    base *= base;
  }
  return r;
}
#endif

C apply(C a, C b, C alpha) {
  if (OP == OP_ADD) return a + alpha * b;
  if (OP == OP_SUB) return a - alpha * b;
  if (OP == OP_MUL) return a * b;
#if IS_FLOAT
  if (OP == OP_DIV) return a / b;
  if (OP == OP_DIV_TRUNC) return trunc(a / b);
  if (OP == OP_DIV_FLOOR) return C(floor_div_d(double(a), double(b)));
#ifndef IS_F64
  if (OP == OP_POW && SCALAR_B == 1) {  // PyTorch's exact forms of common exponents
    if (b == 0.5) return sqrt(a);
    if (b == -0.5) return 1.0 / sqrt(a);
    if (b == -1.0) return 1.0 / a;
  }
#endif
  if (OP == OP_POW) return C(pow_d(double(a), double(b)));
  if (OP == OP_MAX) return (isnan(a) || isnan(b)) ? C(NAN_F) : (a < b ? b : a);
  return (isnan(a) || isnan(b)) ? C(NAN_F) : (b < a ? b : a);
#else
  if (OP == OP_DIV || OP == OP_DIV_TRUNC) return b == C(0) ? C(0) : a / b;
  if (OP == OP_DIV_FLOOR) {
    if (b == C(0)) return C(0);
    C q = a / b;
    if ((a % b) != C(0) && ((a < C(0)) != (b < C(0)))) q -= C(1);
    return q;
  }
  if (OP == OP_POW) return int_pow(a, b);
  if (OP == OP_MAX) return a < b ? b : a;
  return b < a ? b : a;
#endif
}

void main() {
  C alpha = SCALAR(pc.s0);
  C scalar_b = SCALAR(pc.s1);
#ifdef PACKED
  FOR_EACH_QUAD(q) {
    vec4 a = packed_load1(q), b = SCALAR_B == 1 ? vec4(scalar_b) : packed_load2(q), r;
    [[unroll]] for (int c = 0; c < 4; ++c) r[c] = apply(a[c], b[c], alpha);
    packed_store(q, r);
  }
#else
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    C b = SCALAR_B == 1 ? scalar_b : LOAD(el_t[2], o.z);
    STORE(el_t[0], o.x, apply(LOAD(el_t[1], o.y), b, alpha));
  }
#endif
}
