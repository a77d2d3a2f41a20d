#version 460
// fill_: every element of t[0] gets the bits in s0 (the value already
// converted to the tensor's dtype by the host); BYTES is the element size.
#include "common.glsl"
#include "elementwise.glsl"

layout(constant_id = 0) const int BYTES = 4;

void main() {
  FOR_EACH_ELEMENT(i) {
    int o = offsets(i).x;
    if (BYTES == 1) BufU8(el_t[0]).v[o] = uint8_t(el_s0);
    else if (BYTES == 2) BufU16(el_t[0]).v[o] = uint16_t(el_s0);
    else if (BYTES == 4) BufU32(el_t[0]).v[o] = uint(el_s0);
    else BufU64(el_t[0]).v[o] = el_s0;
  }
}
