// The frame of the row shaders (softmax.comp, layer_norm.comp; host side
// rows.cpp): push constants, bindings and main, which finds each row and hands
// it to the including shader's row function (defined after this include).
// Sums, means and variances accumulate in double; exp and log are math.glsl's.
//
// General form: a workgroup per row, any strides. meta: nk, nr, kept sizes,
// kept in strides, kept out strides (nk each), then row sizes, row in
// strides, out strides, weight strides, bias strides (nr each).
//
// PACKED form (float32; rows.cpp picks it for contiguous tensors with rows
// of a multiple of 4 elements starting on 16 bytes, and enough rows): one
// invocation per row, reading the row as 16-byte texels (binding 1: x,
// 2: weight, 3: bias, whole-block views; the push constants give each one's
// first texel) and writing 16-byte stores to binding 0, which starts at row 0
// of this dispatch. No shared memory and no barriers: on lavapipe a texel
// fetch is a vector gather, so eight rows are read at once, while shared
// memory and barriers are slow.
#include "common.glsl"
#include "types.glsl"
#include "math.glsl"

#ifdef PACKED
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

// One row, the push constants already read: x from texel xb of x_t, out to
// quad yb of y_out, n4 = len / 4 texels; weight and bias from texels w0 and
// b0 of w_t and b_t when has_w and has_b.
struct Row {
  uint xb, yb, len, n4;
  int w0, b0;
  bool has_w, has_b;
  double eps;
};
void row(Row r);

void main() {
  // Every push constant is read before the branch: on lavapipe a read inside
  // a branch is a loop over the lanes.
  const uint rows = pc.rows, len = pc.len, n4 = len / 4u;
  const uint i = gl_GlobalInvocationID.x;
  const uint xb = uint(pc.x) + i * pc.xs, yb = i * pc.ys;
  const int w0 = int(pc.w), b0 = int(pc.b);
  const bool has_w = pc.has_w != 0, has_b = pc.has_b != 0;
  const double eps = pc.eps;
  if (i >= rows) return;
  row(Row(xb, yb, len, n4, w0, b0, has_w, has_b, eps));
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

// One row, the push constants already read: element e of it is at
// x, y + xo, yo + row_offsets(m, e).xy (w, b: .zw). The workgroup's 256
// invocations share it (lid: this one's index).
struct Row {
  Meta m;
  uint64_t x, y, w, b;
  int xo, yo;
  uint len, lid;
  bool has_w, has_b;
  double eps;
};
void row(Row r);

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
  for (uint i = gl_WorkGroupID.x; i < rows; i += gl_NumWorkGroups.x) {
    int xo = 0, yo = 0;
    uint k = i;
    for (int d = nk - 1; d >= 0; --d) {
      uint size = uint(m.v[2 + d]);
      int idx = int(k % size);
      k /= size;
      xo += idx * m.v[2 + nk + d];
      yo += idx * m.v[2 + 2 * nk + d];
    }
    row(Row(m, X, Y, Wt, Bt, xo, yo, len, lid, has_w, has_b, eps));
  }
}
#endif
