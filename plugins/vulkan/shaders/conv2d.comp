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
  Meta m = Meta(pc.meta);
  int Cin = m.v[0], H = m.v[1], W = m.v[2], Cout = m.v[3], OH = m.v[4], OW = m.v[5];
  int KH = m.v[6], KW = m.v[7], groups = m.v[8];
  int cin_g = Cin / groups, cout_g = Cout / groups;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * 256u) {
    int ow = int(i % uint(OW)), t = int(i / uint(OW));
    int oh = t % OH;
    t /= OH;
    int oc = t % Cout, nb = t / Cout;
    int g = oc / cout_g;
    A acc = A(0);
    for (int ic = 0; ic < cin_g; ++ic) {
      int xc = nb * m.v[9] + (g * cin_g + ic) * m.v[10];
      int wc = oc * m.v[13] + ic * m.v[14];
      for (int a = 0; a < KH; ++a) {
        int h = oh * m.v[22] - m.v[24] + a * m.v[26];
        if (h < 0 || h >= H) continue;
        for (int c = 0; c < KW; ++c) {
          int x = ow * m.v[23] - m.v[25] + c * m.v[27];
          if (x < 0 || x >= W) continue;
          acc += A(LOAD(pc.x, xc + h * m.v[11] + x * m.v[12])) *
                 A(LOAD(pc.w, wc + a * m.v[15] + c * m.v[16]));
        }
      }
    }
    if (pc.has_bias != 0) acc += A(LOAD(pc.b, oc * m.v[21]));
    STORE(pc.y, nb * m.v[17] + oc * m.v[18] + oh * m.v[19] + ow * m.v[20], C(acc));
  }
}
