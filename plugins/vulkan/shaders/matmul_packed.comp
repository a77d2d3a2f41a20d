#version 460
// Float32 matrix product for the packed path (matmul.cpp, conv.cpp):
// out[z] = alpha * a[z] @ b[z] + beta * c[z], with a [M, K] and b [K, N]
// row-major (columns contiguous, rows a multiple of 4 elements apart), read
// as 16-byte texels (bindings 1 and 2: whole-block views), out written as
// 16-byte stores (binding 0, from out's element [0, 0, 0]), and c, when
// used, read one element at a time through a 4-byte texel view (binding 3)
// with any strides (a bias broadcast along rows or columns, or a matrix).
// K and N are multiples of 4.
//
// Shape of the work, measured fastest on lavapipe (plugins/vulkan/README.md):
// no shared memory and no barriers (both slow there). Each group of 8
// invocations (a subgroup on lavapipe) computes 16 rows x 64 columns: lane l
// owns the texel columns col + l and col + l + 8 for all 16 rows (32 vec4
// accumulators). Per step of 4 k, lane l fetches a's rows row + l and
// row + l + 8 (one texel each) and its 8 texels of b; the a values reach
// every lane through subgroupShuffle with a constant lane (folded to a
// register permute by llvmpipe; subgroupBroadcast is not). Push constants are
// read once at the top: on lavapipe a read inside a branch or loop is a
// loop over the lanes. Workgroups of 32
// invocations: x over 16-row blocks, y over 256-column blocks, z over batches.
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

#define LX 32
#define TM 16
#define TNV 2
#define RA (TM / 8)
layout(local_size_x = LX) in;
layout(push_constant, scalar) uniform Push {
  uint64_t a0, b0, c0;  // first texels of a[0], b[0] (16-byte) and c[0] (4-byte)
  uint M, N4, K4;       // N and K in texels
  uint as, ab;          // a's row and batch strides, in texels
  uint bs, bb;          // b's
  uint os, ob;          // out's
  int cs[3];            // c's batch, row and column strides, in elements
  float alpha, beta;
  int use_c;
} pc;
layout(std430, binding = 0) writeonly buffer Out { vec4 v[]; } out_;
layout(binding = 1) uniform usamplerBuffer A;
layout(binding = 2) uniform usamplerBuffer B;
layout(binding = 3) uniform usamplerBuffer Cv;

void main() {
  const uint lane = gl_LocalInvocationID.x & 7u;
  const uint sgbase = gl_SubgroupInvocationID & ~7u;
  const uint col = (gl_WorkGroupID.y * (LX / 8) + (gl_LocalInvocationID.x >> 3)) * (8 * TNV) + lane;
  const uint row = gl_WorkGroupID.x * TM, z = gl_WorkGroupID.z;
  // Every push constant is read here, before any branch or loop.
  const uint M = pc.M, N4 = pc.N4, K4 = pc.K4, bs = pc.bs, ob = pc.ob, os = pc.os;
  const float alpha = pc.alpha, beta = pc.beta;
  const bool use_c = pc.use_c != 0;
  const int c0 = int(pc.c0);
  const ivec3 cs = ivec3(pc.cs[0], pc.cs[1], pc.cs[2]);
  const uint abase = uint(pc.a0) + z * pc.ab, bbase = uint(pc.b0) + z * pc.bb;
  uint arow[RA];
  [[unroll]] for (int r = 0; r < RA; r++) arow[r] = abase + min(row + lane + 8 * r, M - 1) * pc.as;
  uint bcol[TNV];
  [[unroll]] for (int j = 0; j < TNV; j++) bcol[j] = bbase + min(col + j * 8, N4 - 1);
  vec4 acc[TM][TNV];
  [[unroll]] for (int i = 0; i < TM; i++)
    [[unroll]] for (int j = 0; j < TNV; j++) acc[i][j] = vec4(0.0);
  uint bk = 0;
  for (uint k4 = 0; k4 < K4; k4++, bk += 4 * bs) {
    vec4 am[RA];
    [[unroll]] for (int r = 0; r < RA; r++) am[r] = uintBitsToFloat(texelFetch(A, int(arow[r] + k4)));
    vec4 b[4][TNV];
    [[unroll]] for (int kk = 0; kk < 4; kk++)
      [[unroll]] for (int j = 0; j < TNV; j++) b[kk][j] =
          uintBitsToFloat(texelFetch(B, int(bk + kk * bs + bcol[j])));
    [[unroll]] for (int i = 0; i < TM; i++) {
      const vec4 a = subgroupShuffle(am[i / 8], sgbase + uint(i % 8));
      [[unroll]] for (int j = 0; j < TNV; j++)
        acc[i][j] = fma(vec4(a.w), b[3][j], fma(vec4(a.z), b[2][j],
                        fma(vec4(a.y), b[1][j], fma(vec4(a.x), b[0][j], acc[i][j]))));
    }
  }
  [[unroll]] for (int i = 0; i < TM; i++)
    [[unroll]] for (int j = 0; j < TNV; j++) {
      uint r = row + i, c4 = col + j * 8;
      if (r < M && c4 < N4) {
        vec4 v = alpha * acc[i][j];
        if (use_c) {
          int e = c0 + int(z) * cs[0] + int(r) * cs[1] + int(c4 * 4u) * cs[2];
          vec4 cv = uintBitsToFloat(uvec4(texelFetch(Cv, e).x, texelFetch(Cv, e + cs[2]).x,
                                          texelFetch(Cv, e + 2 * cs[2]).x,
                                          texelFetch(Cv, e + 3 * cs[2]).x));
          v += beta * cv;
        }
        out_.v[z * ob + r * os + c4] = v;
      }
    }
}
