#version 460
// embedding: out element i = weight[idx, j] with t[1] the indices viewed with
// out's shape (stride 0 along the embedding dim), t[2] the weight's column
// offsets (stride 0 along the index dims) and s0 the weight's row stride.
// The host has checked every index; BYTES is the element size.
#include "common.glsl"
#include "elementwise.glsl"

layout(constant_id = 0) const int BYTES = 4;
layout(constant_id = 1) const int INDEX64 = 1;

void main() {
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    int64_t idx = INDEX64 == 1 ? BufI64(el_t[1]).v[o.y] : int64_t(BufI32(el_t[1]).v[o.y]);
    int src = int(idx) * int(el_s0) + o.z;
    if (BYTES == 1) BufU8(el_t[0]).v[o.x] = BufU8(el_t[2]).v[src];
    else if (BYTES == 2) BufU16(el_t[0]).v[o.x] = BufU16(el_t[2]).v[src];
    else if (BYTES == 4) BufU32(el_t[0]).v[o.x] = BufU32(el_t[2]).v[src];
    else BufU64(el_t[0]).v[o.x] = BufU64(el_t[2]).v[src];
  }
}
