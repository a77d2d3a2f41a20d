#version 460
// Comparisons: bool t[0] = t[1] op t[2] (or op the scalar s1 when SCALAR_B).
#include "common.glsl"
#include "elementwise.glsl"
#include "types.glsl"

#define OP_EQ 0
#define OP_NE 1
#define OP_LT 2
#define OP_LE 3
#define OP_GT 4
#define OP_GE 5
layout(constant_id = 0) const int OP = OP_EQ;
layout(constant_id = 1) const int SCALAR_B = 0;

bool compare(C a, C b) {
  if (OP == OP_EQ) return a == b;
  if (OP == OP_NE) return a != b;
  if (OP == OP_LT) return a < b;
  if (OP == OP_LE) return a <= b;
  if (OP == OP_GT) return a > b;
  return a >= b;
}

void main() {
  C scalar_b = SCALAR(pc.s1);
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    C b = SCALAR_B == 1 ? scalar_b : LOAD(el_t[2], o.z);
    BufU8(el_t[0]).v[o.x] = uint8_t(compare(LOAD(el_t[1], o.y), b) ? 1 : 0);
  }
}
