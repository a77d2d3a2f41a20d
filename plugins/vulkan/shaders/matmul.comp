#version 460
// Batched matrix product: out = beta * c + alpha * (a @ b) over strided
// [batch, rows, cols] views (c read only when USE_C). A 64x64 tile of out per
// workgroup of 16x16 invocations, each accumulating 4x4 elements spaced 16
// apart (so neighbouring lanes touch neighbouring columns); a 64x16 slice of
// a and a 16x64 slice of b are staged in shared memory per step of k.
#include "common.glsl"
#include "types.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(push_constant, scalar) uniform Push {
  uint64_t o, a, b, c;
  int M, N, K, use_c;
  int so[3], sa[3], sb[3], sc[3];  // batch, row, column strides
  uint64_t alpha, beta;
} pc;

#define TILE 64
#define KT 16
shared C As[KT][TILE];
shared C Bs[KT][TILE];

void main() {
  // Every push constant is read here, before any loop or branch: on lavapipe
  // a push-constant read inside one is a loop over the lanes.
  const uint64_t O = pc.o, A = pc.a, B = pc.b, Cm = pc.c;
  const int M = pc.M, N = pc.N, K = pc.K;
  const bool use_c = pc.use_c != 0;
  const ivec3 so = ivec3(pc.so[0], pc.so[1], pc.so[2]), sa = ivec3(pc.sa[0], pc.sa[1], pc.sa[2]);
  const ivec3 sb = ivec3(pc.sb[0], pc.sb[1], pc.sb[2]), sc = ivec3(pc.sc[0], pc.sc[1], pc.sc[2]);
  const C alpha = SCALAR(pc.alpha), beta = SCALAR(pc.beta);
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int tid = ty * 16 + tx;
  int row0 = int(gl_WorkGroupID.y) * TILE, col0 = int(gl_WorkGroupID.x) * TILE;
  int batch = int(gl_WorkGroupID.z);
  int abase = batch * sa[0], bbase = batch * sb[0];
  C acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = C(0);
  for (int k0 = 0; k0 < K; k0 += KT) {
    for (int r = 0; r < 4; ++r) {
      int idx = tid + 256 * r;
      int ar = idx / KT, ak = idx % KT;  // a: 64 rows x 16 k
      int gr = row0 + ar, gk = k0 + ak;
      As[ak][ar] = (gr < M && gk < K) ? LOAD(A, abase + gr * sa[1] + gk * sa[2]) : C(0);
      int bk = idx / TILE, bc = idx % TILE;  // b: 16 k x 64 columns
      int gk2 = k0 + bk, gc = col0 + bc;
      Bs[bk][bc] = (gk2 < K && gc < N) ? LOAD(B, bbase + gk2 * sb[1] + gc * sb[2]) : C(0);
    }
    barrier();
    for (int kk = 0; kk < KT; ++kk) {
      C av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = As[kk][ty + 16 * i];
      for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx + 16 * j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  for (int i = 0; i < 4; ++i) {
    int r = row0 + ty + 16 * i;
    if (r >= M) continue;
    for (int j = 0; j < 4; ++j) {
      int c = col0 + tx + 16 * j;
      if (c >= N) continue;
      C v = alpha * acc[i][j];
      if (use_c) v += beta * LOAD(Cm, batch * sc[0] + r * sc[1] + c * sc[2]);
      STORE(O, batch * so[0] + r * so[1] + c * so[2], v);
    }
  }
}
