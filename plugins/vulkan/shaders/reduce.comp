#version 460
// Reductions sum, mean, amax, amin, argmax, argmin of strided t[1] into t[0]
// (argmax/argmin: int64 indices in row-major order of the reduced dims).
// meta: nk, nr, then kept sizes, kept self strides, kept out strides (nk
// each), reduced sizes, reduced self strides (nr each). MODE 0: a workgroup
// per output, its 256 invocations combined through shared memory; MODE 1: an
// invocation per output (few elements each). Floating sums accumulate in double.
#include "common.glsl"
#include "types.glsl"

#define OP_SUM 0
#define OP_MEAN 1
#define OP_AMAX 2
#define OP_AMIN 3
#define OP_ARGMAX 4
#define OP_ARGMIN 5
layout(constant_id = 0) const int OP = OP_SUM;
layout(constant_id = 1) const int MODE = 0;
// 1: exactly one reduced dim (after merging), whose stride is pc.rstride;
// offsets then skip the meta block.
layout(constant_id = 2) const int ONE_REDUCED = 0;

#ifdef PACKED
// The packed form (float32 sum and mean; reduce.cpp picks it for contiguous
// rows of a multiple of 4 elements starting on 16 bytes, reduced over the
// trailing dims into a contiguous out): two dispatches. MODE 0: invocation
// id sums texels [c * per, (c + 1) * per) of row id / parts (c = id % parts)
// into the double partials[id] (binding 0: a scratch buffer). MODE 1:
// invocation r adds row r's `parts` partials (binding 1: the scratch
// buffer's texel view, two doubles per texel) and stores out[r] (binding 0:
// out). Reading 16-byte texels, many invocations at once, is what makes it
// fast on lavapipe; the general form below runs a workgroup per output.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform Push {
  uint64_t x;  // MODE 0: first texel of row 0; MODE 1: first texel of the partials
  uint rows;   // outputs
  uint n4;     // texels per row
  uint parts;  // partials per row (even)
  uint per;    // texels per partial
  uint count;  // elements per row
} pc;
layout(std430, binding = 0) writeonly buffer Partials { double v[]; } partials;
layout(std430, binding = 0) writeonly buffer Out { float v[]; } out_f;
layout(binding = 1) uniform usamplerBuffer src;

void main() {
  // Every push constant is read before the branch: on lavapipe a read inside
  // a branch is a loop over the lanes.
  const uint rows = pc.rows, n4 = pc.n4, parts = pc.parts, per = pc.per;
  const uint x0 = uint(pc.x);
  const double count = double(pc.count);
  const uint id = gl_GlobalInvocationID.x;
  if (MODE == 0) {
    if (id >= rows * parts) return;
    uint r = id / parts, begin = (id % parts) * per;
    uint end = min(begin + per, n4), base = x0 + r * n4;
    double s = 0.0lf;
    for (uint j = begin; j < end; ++j) {
      dvec4 v = dvec4(uintBitsToFloat(texelFetch(src, int(base + j))));
      s += (v.x + v.y) + (v.z + v.w);
    }
    partials.v[id] = s;
  } else {
    if (id >= rows) return;
    uint base = x0 + id * (parts / 2u);
    double s = 0.0lf;
    for (uint j = 0u; j < parts / 2u; ++j) {
      uvec4 u = texelFetch(src, int(base + j));
      s += packDouble2x32(u.xy) + packDouble2x32(u.zw);
    }
    out_f.v[id] = float(OP == OP_MEAN ? s / count : s);
  }
}
#else
layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t t[2];
  uint n_out;
  uint count;
  int rstride;
} pc;

// The push constants, read once at the top of main: on lavapipe a
// push-constant read inside a loop or branch is a loop over the lanes.
uint n_out, count;
int rstride;

#if IS_FLOAT
#define A double
bool is_nan(A v) { return isnan(v); }
#else
#define A C
bool is_nan(A v) { return false; }
#endif

// Folds (w, wi) into (v, vi); vi < 0 marks "nothing yet" for the extremes.
void combine(inout A v, inout int vi, A w, int wi) {
  if (OP == OP_SUM || OP == OP_MEAN) {
    v += w;
    return;
  }
  if (wi < 0) return;
  bool take;
  if (vi < 0) {
    take = true;
  } else if (is_nan(v)) {
    take = is_nan(w) && wi < vi;
  } else if (is_nan(w)) {
    take = true;
  } else if (OP == OP_AMAX || OP == OP_ARGMAX) {
    take = w > v || (w == v && wi < vi);
  } else {
    take = w < v || (w == v && wi < vi);
  }
  if (take) {
    v = w;
    vi = wi;
  }
}

shared A s_v[256];
shared int s_i[256];

// Self offset of kept index o and out offset, from the meta block.
void kept_offsets(Meta m, uint o, out int self_off, out int out_off) {
  int nk = m.v[0];
  self_off = 0;
  out_off = 0;
  for (int d = nk - 1; d >= 0; --d) {
    uint size = uint(m.v[2 + d]);
    int idx = int(o % size);
    o /= size;
    self_off += idx * m.v[2 + nk + d];
    out_off += idx * m.v[2 + 2 * nk + d];
  }
}

int reduced_offset(Meta m, uint r) {
  if (ONE_REDUCED == 1) return int(r) * rstride;
  int nk = m.v[0], nr = m.v[1], base = 2 + 3 * nk, off = 0;
  for (int d = nr - 1; d >= 0; --d) {
    uint size = uint(m.v[base + d]);
    off += int(r % size) * m.v[base + nr + d];
    r /= size;
  }
  return off;
}

void finish(uint64_t dst, int out_off, A v, int vi) {
  if (OP == OP_ARGMAX || OP == OP_ARGMIN) {
    BufI64(dst).v[out_off] = int64_t(vi);
  } else if (OP == OP_MEAN) {
    STORE(dst, out_off, C(v / A(count)));
  } else {
    STORE(dst, out_off, C(v));
  }
}

void main() {
  Meta m = Meta(pc.meta);
  const uint64_t out_t = pc.t[0], self_t = pc.t[1];
  n_out = pc.n_out;
  count = pc.count;
  rstride = pc.rstride;
  const uint lid = gl_LocalInvocationID.x;
  if (MODE == 1) {
    for (uint o = gl_GlobalInvocationID.x; o < n_out; o += gl_NumWorkGroups.x * 256u) {
      int so, oo;
      kept_offsets(m, o, so, oo);
      A v = A(0);
      int vi = -1;
      for (uint r = 0u; r < count; ++r) combine(v, vi, A(LOAD(self_t, so + reduced_offset(m, r))), int(r));
      finish(out_t, oo, v, vi);
    }
    return;
  }
  for (uint o = gl_WorkGroupID.x; o < n_out; o += gl_NumWorkGroups.x) {
    int so, oo;
    kept_offsets(m, o, so, oo);
    A v = A(0);
    int vi = -1;
    for (uint r = lid; r < count; r += 256u)
      combine(v, vi, A(LOAD(self_t, so + reduced_offset(m, r))), int(r));
    s_v[lid] = v;
    s_i[lid] = vi;
    barrier();
    for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
      if (lid < half_) {
        A a = s_v[lid];
        int ai = s_i[lid];
        combine(a, ai, s_v[lid + half_], s_i[lid + half_]);
        s_v[lid] = a;
        s_i[lid] = ai;
      }
      barrier();
    }
    if (lid == 0u) finish(out_t, oo, s_v[0], s_i[0]);
    barrier();
  }
}
#endif
