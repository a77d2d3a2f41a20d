#version 460
// Row-wise normalizations: softmax, log_softmax (over one dim) and
// layer_norm (over the trailing dims), a workgroup per row. meta: nk, nr,
// kept sizes, kept in strides, kept out strides (nk each), then row sizes,
// row in strides, out strides, weight strides, bias strides (nr each).
// Sums, means and variances accumulate in double; exp and log are math.glsl's.
#include "common.glsl"
#include "types.glsl"
#include "math.glsl"

#define OP_SOFTMAX 0
#define OP_LOG_SOFTMAX 1
#define OP_LAYER_NORM 2
layout(constant_id = 0) const int OP = OP_SOFTMAX;

#ifdef PACKED
// The packed form (float32; nn.cpp picks it for contiguous tensors with rows
// of a multiple of 4 elements starting on 16 bytes, and enough rows): one
// invocation per row, reading the row as 16-byte texels (binding 1: x,
// 2: weight, 3: bias, whole-block views; the push constants give each one's
// first texel) and writing 16-byte stores to binding 0, which starts at row 0
// of this dispatch. No shared memory and no barriers: on lavapipe a texel
// fetch is a vector gather, so eight rows are read at once, while shared
// memory and barriers are slow. Same double accumulation and math as below.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform Push {
  uint64_t x, w, b;  // first texels (x: of row 0)
  uint rows;
  uint len;          // elements per row, a multiple of 4
  uint xs, ys;       // texels from one row to the next in x and out
  double eps;
  int has_w, has_b;
} pc;
layout(std430, binding = 0) writeonly buffer Out { u64vec2 q[]; } y_out;
layout(binding = 1) uniform usamplerBuffer x_t;
layout(binding = 2) uniform usamplerBuffer w_t;
layout(binding = 3) uniform usamplerBuffer b_t;

dvec4 load_x(uint i) { return dvec4(uintBitsToFloat(texelFetch(x_t, int(i)))); }
void store_y(uint i, dvec4 v) {
  uvec4 u = floatBitsToUint(vec4(v));
  y_out.q[i] = u64vec2(packUint2x32(u.xy), packUint2x32(u.zw));
}
double max_nan(double m, double v) { return isnan(m) || m > v ? m : v; }

void main() {
  // Every push constant is read before the branch: on lavapipe a read inside
  // a branch is a loop over the lanes.
  const uint rows = pc.rows, len = pc.len, n4 = len / 4u;
  const uint row = gl_GlobalInvocationID.x;
  const uint xb = uint(pc.x) + row * pc.xs, yb = row * pc.ys;
  const int w0 = int(pc.w), b0 = int(pc.b);
  const bool has_w = pc.has_w != 0, has_b = pc.has_b != 0;
  const double eps = pc.eps;
  if (row >= rows) return;
  if (OP == OP_LAYER_NORM) {
    double s = 0.0lf;
    for (uint j = 0u; j < n4; ++j) {
      dvec4 v = load_x(xb + j);
      s += (v.x + v.y) + (v.z + v.w);
    }
    double mean = s / double(len), q = 0.0lf;
    for (uint j = 0u; j < n4; ++j) {
      dvec4 d = load_x(xb + j) - mean;
      q += dot(d, d);
    }
    double rstd = 1.0lf / sqrt(q / double(len) + eps);
    for (uint j = 0u; j < n4; ++j) {
      dvec4 v = (load_x(xb + j) - mean) * rstd;
      if (has_w) v *= dvec4(uintBitsToFloat(texelFetch(w_t, w0 + int(j))));
      if (has_b) v += dvec4(uintBitsToFloat(texelFetch(b_t, b0 + int(j))));
      store_y(yb + j, v);
    }
  } else {
    double mx = -INF_D;
    for (uint j = 0u; j < n4; ++j) {
      dvec4 v = load_x(xb + j);
      mx = max_nan(max_nan(max_nan(max_nan(mx, v.x), v.y), v.z), v.w);
    }
    double s = 0.0lf;
    for (uint j = 0u; j < n4; ++j) {
      dvec4 d = load_x(xb + j) - mx;
      s += (exp_d(d.x) + exp_d(d.y)) + (exp_d(d.z) + exp_d(d.w));
    }
    double ls = log_d(s);
    for (uint j = 0u; j < n4; ++j) {
      dvec4 d = load_x(xb + j) - mx, r;
      [[unroll]] for (int c = 0; c < 4; ++c) r[c] = OP == OP_LOG_SOFTMAX ? d[c] - ls : exp_d(d[c]) / s;
      store_y(yb + j, r);
    }
  }
}
#else
layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t x, y, w, b;
  uint rows;
  uint len;
  double eps;
  int has_w, has_b;
} pc;


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

// 1: the row is one dim (the usual case), whose x, y, w, b strides main
// reads once; else row_offsets walks the meta block for every element.
layout(constant_id = 1) const int ONE_ROW_DIM = 0;
ivec4 row_strides;

// Offsets of element r of the row in x, y, w, b (ivec4).
ivec4 row_offsets(Meta m, uint r) {
  if (ONE_ROW_DIM == 1) return int(r) * row_strides;
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
  // Every push constant is read here, before any loop or branch: on lavapipe
  // a read inside one is a loop over the lanes.
  const uint64_t X = pc.x, Y = pc.y, Wt = pc.w, Bt = pc.b;
  const uint rows = pc.rows, len = pc.len;
  const double eps = pc.eps;
  const bool has_w = pc.has_w != 0, has_b = pc.has_b != 0;
  Meta m = Meta(pc.meta);
  const uint lid = gl_LocalInvocationID.x;
  const int nk = m.v[0];
  if (ONE_ROW_DIM == 1) {
    const int base = 2 + 3 * nk;
    row_strides = ivec4(m.v[base + 1], m.v[base + 2], m.v[base + 3], m.v[base + 4]);
  }
  for (uint row = gl_WorkGroupID.x; row < rows; row += gl_NumWorkGroups.x) {
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
      for (uint r = lid; r < len; r += 256u) s += double(LOAD(X, xo + row_offsets(m, r).x));
      double mean = group_reduce(s, false) / double(len);
      double q = 0.0lf;
      for (uint r = lid; r < len; r += 256u) {
        double d = double(LOAD(X, xo + row_offsets(m, r).x)) - mean;
        q += d * d;
      }
      double rstd = 1.0lf / sqrt(group_reduce(q, false) / double(len) + eps);
      for (uint r = lid; r < len; r += 256u) {
        ivec4 o = row_offsets(m, r);
        double v = (double(LOAD(X, xo + o.x)) - mean) * rstd;
        if (has_w) v *= double(LOAD(Wt, o.z));
        if (has_b) v += double(LOAD(Bt, o.w));
        STORE(Y, yo + o.y, C(v));
      }
    } else {
      double mx = -INF_D;
      for (uint r = lid; r < len; r += 256u) {
        double v = double(LOAD(X, xo + row_offsets(m, r).x));
        mx = isnan(mx) || mx > v ? mx : v;
      }
      mx = group_reduce(mx, true);
      double s = 0.0lf;
      for (uint r = lid; r < len; r += 256u)
        s += exp_d(double(LOAD(X, xo + row_offsets(m, r).x)) - mx);
      s = group_reduce(s, false);
      double ls = log_d(s);
      for (uint r = lid; r < len; r += 256u) {
        ivec4 o = row_offsets(m, r);
        double d = double(LOAD(X, xo + o.x)) - mx;
        STORE(Y, yo + o.y, C(OP == OP_LOG_SOFTMAX ? d - ls : exp_d(d) / s));
      }
    }
  }
}
#endif
