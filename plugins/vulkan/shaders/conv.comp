#version 460
// conv2d, direct: an invocation per output element of NCHW y, summing over
// its group's input channels and the kernel taps inside the input (double
// accumulation for floating types). meta: Cin, H, W, Cout, OH, OW, KH, KW,
// groups, x strides[4], w strides[4], y strides[4], bias stride, stride[2],
// padding[2], dilation[2].
#include "common.glsl"
#include "types.glsl"

layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t x, w, b, y;
  uint n;
  int has_bias;
} pc;

#if IS_FLOAT
#define A double
#else
#define A C
#endif

void main() {
  // Every push constant and meta value is read here, before any loop or
  // branch: on lavapipe a read inside one is a loop over the lanes.
  const uint64_t X = pc.x, Wt = pc.w, Bt = pc.b, Y = pc.y;
  const uint n = pc.n;
  const bool has_bias = pc.has_bias != 0;
  Meta m = Meta(pc.meta);
  const int Cin = m.v[0], H = m.v[1], W = m.v[2], Cout = m.v[3], OH = m.v[4], OW = m.v[5];
  const int KH = m.v[6], KW = m.v[7], groups = m.v[8];
  const ivec4 xs = ivec4(m.v[9], m.v[10], m.v[11], m.v[12]);
  const ivec4 ws = ivec4(m.v[13], m.v[14], m.v[15], m.v[16]);
  const ivec4 ys = ivec4(m.v[17], m.v[18], m.v[19], m.v[20]);
  const int bs = m.v[21];
  const ivec2 stride = ivec2(m.v[22], m.v[23]), pad = ivec2(m.v[24], m.v[25]);
  const ivec2 dil = ivec2(m.v[26], m.v[27]);
  const int cin_g = Cin / groups, cout_g = Cout / groups;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
    int ow = int(i % uint(OW)), t = int(i / uint(OW));
    int oh = t % OH;
    t /= OH;
    int oc = t % Cout, nb = t / Cout;
    int g = oc / cout_g;
    A acc = A(0);
    for (int ic = 0; ic < cin_g; ++ic) {
      int xc = nb * xs[0] + (g * cin_g + ic) * xs[1];
      int wc = oc * ws[0] + ic * ws[1];
      for (int a = 0; a < KH; ++a) {
        int h = oh * stride[0] - pad[0] + a * dil[0];
        if (h < 0 || h >= H) continue;
        for (int c = 0; c < KW; ++c) {
          int x = ow * stride[1] - pad[1] + c * dil[1];
          if (x < 0 || x >= W) continue;
          acc += A(LOAD(X, xc + h * xs[2] + x * xs[3])) * A(LOAD(Wt, wc + a * ws[2] + c * ws[3]));
        }
      }
    }
    if (has_bias) acc += A(LOAD(Bt, oc * bs));
    STORE(Y, nb * ys[0] + oc * ys[1] + oh * ys[2] + ow * ys[3], C(acc));
  }
}
