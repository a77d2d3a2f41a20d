#version 460
// softmax and log_softmax over one dim (softmax.cpp, through rows.cpp): the
// row's max, the sum of exp(x - max) in double, then exp(x - max) / sum or
// x - max - log(sum). rows.glsl holds the frame and both forms' layouts.
#include "rows.glsl"

layout(constant_id = 0) const int LOG = 0;  // 1: log_softmax

#ifdef PACKED
double max_nan(double m, double v) { return isnan(m) || m > v ? m : v; }

void row(Row r) {
  double mx = -INF_D;
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 v = load_x(r.xb + j);
    mx = max_nan(max_nan(max_nan(max_nan(mx, v.x), v.y), v.z), v.w);
  }
  double s = 0.0lf;
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 d = load_x(r.xb + j) - mx;
    s += (exp_d(d.x) + exp_d(d.y)) + (exp_d(d.z) + exp_d(d.w));
  }
  double ls = log_d(s);
  for (uint j = 0u; j < r.n4; ++j) {
    dvec4 d = load_x(r.xb + j) - mx, o;
    [[unroll]] for (int c = 0; c < 4; ++c) o[c] = LOG == 1 ? d[c] - ls : exp_d(d[c]) / s;
    store_y(r.yb + j, o);
  }
}
#else
void row(Row r) {
  double mx = -INF_D;
  for (uint e = r.lid; e < r.len; e += 256u) {
    double v = double(LOAD(r.x, r.xo + row_offsets(r.m, e).x));
    mx = isnan(mx) || mx > v ? mx : v;
  }
  mx = group_reduce(mx, true);
  double s = 0.0lf;
  for (uint e = r.lid; e < r.len; e += 256u)
    s += exp_d(double(LOAD(r.x, r.xo + row_offsets(r.m, e).x)) - mx);
  s = group_reduce(s, false);
  double ls = log_d(s);
  for (uint e = r.lid; e < r.len; e += 256u) {
    ivec4 o = row_offsets(r.m, e);
    double d = double(LOAD(r.x, r.xo + o.x)) - mx;
    STORE(r.y, r.yo + o.y, C(LOG == 1 ? d - ls : exp_d(d) / s));
  }
}
#endif
