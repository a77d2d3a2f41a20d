#version 460
// Strided copy of 4-byte elements into a contiguous out (copy_ of float32 or
// int32, e.g. a transpose made contiguous), the packed way (copy.cpp): the
// source is read one element at a time through the 4-byte texel view of its
// block (binding 1), which lavapipe compiles to a vector gather, and out is
// written 16 bytes at a time (binding 0, starting at out's element 0). The
// source's dims, collapsed to at most 3 (outermost first; ndim < 3 leaves the
// leading ones at size 1), map onto the dispatch: z and y index the outer
// two, x runs over quads of the last, whose size is a multiple of 4.
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform Push {
  uint64_t first;   // the source's element 0, as a texel of binding 1
  int sizes[3];     // out's (and the source's) sizes
  int strides[3];   // the source's strides, in elements
} pc;
layout(std430, binding = 0) writeonly buffer Out { u64vec2 q[]; } dst;
layout(binding = 1) uniform usamplerBuffer src;

void main() {
  // Every push constant is read before the branch: on lavapipe a read inside
  // a branch is a loop over the lanes.
  const uint width = uint(pc.sizes[2]);
  const uint row = gl_GlobalInvocationID.z * uint(pc.sizes[1]) + gl_GlobalInvocationID.y;
  const int s = pc.strides[2];
  const uint col = gl_GlobalInvocationID.x * 4u;
  const int o = int(pc.first) + int(gl_GlobalInvocationID.z) * pc.strides[0] +
                int(gl_GlobalInvocationID.y) * pc.strides[1] + int(col) * s;
  if (col >= width) return;
  uvec4 v = uvec4(texelFetch(src, o).x, texelFetch(src, o + s).x, texelFetch(src, o + 2 * s).x,
                  texelFetch(src, o + 3 * s).x);
  dst.q[(row * width + col) / 4u] = u64vec2(packUint2x32(v.xy), packUint2x32(v.zw));
}
