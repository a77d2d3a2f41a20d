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
  // Every push constant is read here, before any loop or branch: on lavapipe
  // a push-constant read inside one is a loop over the lanes.
  const uint64_t X = pc.x, Y = pc.y;
  const int CH = pc.CH, H = pc.H, W = pc.W, OH = pc.OH, OW = pc.OW;
  const ivec4 xs = ivec4(pc.xs[0], pc.xs[1], pc.xs[2], pc.xs[3]);
  const ivec4 ys = ivec4(pc.ys[0], pc.ys[1], pc.ys[2], pc.ys[3]);
  const ivec2 k = ivec2(pc.k[0], pc.k[1]), s = ivec2(pc.s[0], pc.s[1]);
  const ivec2 p = ivec2(pc.p[0], pc.p[1]), d = ivec2(pc.d[0], pc.d[1]);
  const uint n = pc.n;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
    int ow = int(i % uint(OW)), t = int(i / uint(OW));
    int oh = t % OH;
    t /= OH;
    int c = t % CH, nb = t / CH;
    int base = nb * xs[0] + c * xs[1];
    C best = C(-1.0 / 0.0);
    bool nan_seen = false;
    for (int a = 0; a < k[0]; ++a) {
      int h = oh * s[0] - p[0] + a * d[0];
      if (h < 0 || h >= H) continue;
      for (int b = 0; b < k[1]; ++b) {
        int w = ow * s[1] - p[1] + b * d[1];
        if (w < 0 || w >= W) continue;
        C v = LOAD(X, base + h * xs[2] + w * xs[3]);
        if (isnan(v)) nan_seen = true;
        else if (v > best) best = v;
      }
    }
    int yo = nb * ys[0] + c * ys[1] + oh * ys[2] + ow * ys[3];
    STORE(Y, yo, nan_seen ? C(uintBitsToFloat(0x7fc00000u)) : best);
  }
}
