#version 460
// layer_norm over the trailing dims (layer_norm.cpp, through rows.cpp): the
// row's mean and variance in double, then (x - mean) / sqrt(var + eps), times
// the weight and plus the bias when given. rows.glsl holds the frame and both
// forms' layouts.
#include "rows.glsl"

#ifdef PACKED
void row(Row r) {
  double s = 0.0lf;
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 v = load_x(r.xb + j);
    s += (v.x + v.y) + (v.z + v.w);
  }
  double mean = s / double(r.len), q = 0.0lf;
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 d = load_x(r.xb + j) - mean;
    q += dot(d, d);
  }
  double rstd = 1.0lf / sqrt(q / double(r.len) + r.eps);
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 v = (load_x(r.xb + j) - mean) * rstd;
    if (r.has_w) v *= dvec4(uintBitsToFloat(texelFetch(w_t, r.w0 + int(j))));
    if (r.has_b) v += dvec4(uintBitsToFloat(texelFetch(b_t, r.b0 + int(j))));
    store_y(r.yb + j, v);
  }
}
#else
void row(Row r) {
  double s = 0.0lf;
  for (uint e = r.lid; e < r.len; e += 256u) s += double(LOAD(r.x, r.xo + row_offsets(r.m, e).x));
  double mean = group_reduce(s, false) / double(r.len);
  double q = 0.0lf;
  for (uint e = r.lid; e < r.len; e += 256u) {
    double d = double(LOAD(r.x, r.xo + row_offsets(r.m, e).x)) - mean;
    q += d * d;
  }
  double rstd = 1.0lf / sqrt(group_reduce(q, false) / double(r.len) + r.eps);
  for (uint e = r.lid; e < r.len; e += 256u) {
    ivec4 o = row_offsets(r.m, e);
    double v = (double(LOAD(r.x, r.xo + o.x)) - mean) * rstd;
    if (r.has_w) v *= double(LOAD(r.w, o.z));
    if (r.has_b) v += double(LOAD(r.b, o.w));
    STORE(r.y, r.yo + o.y, C(v));
  }
}
#endif
