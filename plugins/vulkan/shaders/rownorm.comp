#version 460
// Row-wise normalizations: softmax, log_softmax (over one dim) and
// layer_norm (over the trailing dims), a workgroup per row. meta: nk, nr,
// kept sizes, kept in strides, kept out strides (nk each), then row sizes,
// row in strides, out strides, weight strides, bias strides (nr each).
// Sums, means and variances accumulate in double; exp and log are math.glsl's.
#include "common.glsl"
#include "types.glsl"
#include "math.glsl"

layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t x, y, w, b;
  uint rows;
  uint len;
  double eps;
  int has_w, has_b;
} pc;

#define OP_SOFTMAX 0
#define OP_LOG_SOFTMAX 1
#define OP_LAYER_NORM 2
layout(constant_id = 0) const int OP = OP_SOFTMAX;

shared double s_acc[256];

// Combines every invocation's v (max when `is_max`, else sum); all get the result.
double group_reduce(double v, bool is_max) {
  uint lid = gl_LocalInvocationID.x;
  s_acc[lid] = v;
  barrier();
  for (uint h = 128u; h > 0u; h >>= 1) {
    if (lid < h) {
      double a = s_acc[lid], c = s_acc[lid + h];
      s_acc[lid] = is_max ? (isnan(a) || a > c ? a : c) : a + c;
    }
    barrier();
  }
  double r = s_acc[0];
  barrier();
  return r;
}

// Offsets of element r of the row in x, y, w, b (ivec4).
ivec4 row_offsets(Meta m, uint r) {
  int nk = m.v[0], nr = m.v[1], base = 2 + 3 * nk;
  ivec4 o = ivec4(0);
  for (int d = nr - 1; d >= 0; --d) {
    uint size = uint(m.v[base + d]);
    int idx = int(r % size);
    r /= size;
    o += idx * ivec4(m.v[base + nr + d], m.v[base + 2 * nr + d], m.v[base + 3 * nr + d],
                     m.v[base + 4 * nr + d]);
  }
  return o;
}

void main() {
  Meta m = Meta(pc.meta);
  uint lid = gl_LocalInvocationID.x;
  int nk = m.v[0];
  for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
    int xo = 0, yo = 0;
    uint k = row;
    for (int d = nk - 1; d >= 0; --d) {
      uint size = uint(m.v[2 + d]);
      int idx = int(k % size);
      k /= size;
      xo += idx * m.v[2 + nk + d];
      yo += idx * m.v[2 + 2 * nk + d];
    }
    if (OP == OP_LAYER_NORM) {
      double s = 0.0lf;
      for (uint r = lid; r < pc.len; r += 256u) s += double(LOAD(pc.x, xo + row_offsets(m, r).x));
      double mean = group_reduce(s, false) / double(pc.len);
      double q = 0.0lf;
      for (uint r = lid; r < pc.len; r += 256u) {
        double d = double(LOAD(pc.x, xo + row_offsets(m, r).x)) - mean;
        q += d * d;
      }
      double rstd = 1.0lf / sqrt(group_reduce(q, false) / double(pc.len) + pc.eps);
      for (uint r = lid; r < pc.len; r += 256u) {
        ivec4 o = row_offsets(m, r);
        double v = (double(LOAD(pc.x, xo + o.x)) - mean) * rstd;
        if (pc.has_w != 0) v *= double(LOAD(pc.w, o.z));
        if (pc.has_b != 0) v += double(LOAD(pc.b, o.w));
        STORE(pc.y, yo + o.y, C(v));
      }
    } else {
      double mx = -INF_D;
      for (uint r = lid; r < pc.len; r += 256u) {
        double v = double(LOAD(pc.x, xo + row_offsets(m, r).x));
        mx = isnan(mx) || mx > v ? mx : v;
      }
      mx = group_reduce(mx, true);
      double s = 0.0lf;
      for (uint r = lid; r < pc.len; r += 256u)
        s += exp_d(double(LOAD(pc.x, xo + row_offsets(m, r).x)) - mx);
      s = group_reduce(s, false);
      double ls = log_d(s);
      for (uint r = lid; r < pc.len; r += 256u) {
        ivec4 o = row_offsets(m, r);
        double d = double(LOAD(pc.x, xo + o.x)) - mx;
        STORE(pc.y, yo + o.y, C(OP == OP_LOG_SOFTMAX ? d - ls : exp_d(d) / s));
      }
    }
  }
}
