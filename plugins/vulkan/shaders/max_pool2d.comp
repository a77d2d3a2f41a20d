#version 460
// max_pool2d over NCHW strided input: an invocation per output element; only
// taps inside the input are read (padding never wins); NaN wins.
#include "common.glsl"
#include "types.glsl"

layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push {
  uint64_t meta;  // unused
  uint64_t x, y;
  int CH, H, W, OH, OW;
  int xs[4];
  int ys[4];
  int k[2], s[2], p[2], d[2];
  uint n;
} pc;

void main() {
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * 256u) {
    int ow = int(i % uint(pc.OW)), t = int(i / uint(pc.OW));
    int oh = t % pc.OH;
    t /= pc.OH;
    int c = t % pc.CH, nb = t / pc.CH;
    int base = nb * pc.xs[0] + c * pc.xs[1];
    C best = C(-1.0 / 0.0);
    bool nan_seen = false;
    for (int a = 0; a < pc.k[0]; ++a) {
      int h = oh * pc.s[0] - pc.p[0] + a * pc.d[0];
      if (h < 0 || h >= pc.H) continue;
      for (int b = 0; b < pc.k[1]; ++b) {
        int w = ow * pc.s[1] - pc.p[1] + b * pc.d[1];
        if (w < 0 || w >= pc.W) continue;
        C v = LOAD(pc.x, base + h * pc.xs[2] + w * pc.xs[3]);
        if (isnan(v)) nan_seen = true;
        else if (v > best) best = v;
      }
    }
    int yo = nb * pc.ys[0] + c * pc.ys[1] + oh * pc.ys[2] + ow * pc.ys[3];
    STORE(pc.y, yo, nan_seen ? C(uintBitsToFloat(0x7fc00000u)) : best);
  }
}
