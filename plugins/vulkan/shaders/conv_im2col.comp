#version 460
// im2col for conv2d's packed path (conv.cpp), float32: for image n and
// input channel c (z = n * C + c) and kernel tap t = kh * KW + kw (y), the
// row c * KH * KW + t of col[n] (binding 0: [images, C * KH * KW, OH * OW],
// contiguous, from the first image of this dispatch) holds the input pixel
// each output position (oh, ow) reads through that tap, or 0 in the padding.
// x is read through the 4-byte texel view of its block (binding 1), a vector
// gather on lavapipe; col is written 16 bytes (four output positions) at a time.
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform Push {
  uint64_t first;  // x's element [n0, 0, 0, 0], as a texel of binding 1
  int C, H, W, OH, OW, KH, KW;
  int xs[4];       // x's strides (n, c, h, w), in elements
  int stride[2], pad[2], dil[2];
} pc;
layout(std430, binding = 0) writeonly buffer Col { u64vec2 q[]; } col;
layout(binding = 1) uniform usamplerBuffer x;

void main() {
  // Every push constant is read before the branch: on lavapipe a read inside
  // a branch is a loop over the lanes.
  const int C = pc.C, H = pc.H, W = pc.W, OW = pc.OW, KW = pc.KW, taps = pc.KH * pc.KW;
  const uint P = uint(pc.OH * OW);
  const ivec4 xs = ivec4(pc.xs[0], pc.xs[1], pc.xs[2], pc.xs[3]);
  const ivec2 stride = ivec2(pc.stride[0], pc.stride[1]), pad = ivec2(pc.pad[0], pc.pad[1]);
  const ivec2 dil = ivec2(pc.dil[0], pc.dil[1]);
  const int first = int(pc.first);
  const uint p = gl_GlobalInvocationID.x * 4u;
  if (p >= P) return;
  int n = int(gl_GlobalInvocationID.z) / C, c = int(gl_GlobalInvocationID.z) % C;
  int t = int(gl_GlobalInvocationID.y), kh = t / KW, kw = t % KW;
  int oh = int(p) / OW, ow = int(p) % OW;
  int base = first + n * xs[0] + c * xs[1];
  uvec4 v;
  [[unroll]] for (int i = 0; i < 4; ++i) {
    int ih = oh * stride[0] - pad[0] + kh * dil[0];
    int iw = ow * stride[1] - pad[1] + kw * dil[1];
    bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
    // (the fetch runs for every lane, so outside ones read a valid texel)
    uint got = texelFetch(x, inside ? base + ih * xs[2] + iw * xs[3] : base).x;
    v[i] = inside ? got : 0u;
    bool wrap = ++ow == OW;
    ow = wrap ? 0 : ow;
    oh += wrap ? 1 : 0;
  }
  uint row = (uint(n) * uint(C) + uint(c)) * uint(taps) + uint(t);
  col.q[(row * P + p) / 4u] = u64vec2(packUint2x32(v.xy), packUint2x32(v.zw));
}
