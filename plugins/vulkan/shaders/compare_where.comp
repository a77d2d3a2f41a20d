#version 460
// where: t[0] = t[1] (bool) ? t[2] : t[3], moving elements of BYTES bytes.
#include "common.glsl"
#include "elementwise.glsl"

layout(constant_id = 0) const int BYTES = 4;

void main() {
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    bool c = BufU8(el_t[1]).v[o.y] != uint8_t(0);
    int s = c ? o.z : o.w;
    uint64_t src = c ? el_t[2] : el_t[3];
    if (BYTES == 1) BufU8(el_t[0]).v[o.x] = BufU8(src).v[s];
    else if (BYTES == 2) BufU16(el_t[0]).v[o.x] = BufU16(src).v[s];
    else if (BYTES == 4) BufU32(el_t[0]).v[o.x] = BufU32(src).v[s];
    else BufU64(el_t[0]).v[o.x] = BufU64(src).v[s];
  }
}
