// Floating helpers with PyTorch's semantics, for float (and double where GLSL
// has the builtins).

// NaN in whatever float type.
#define NAN_F uintBitsToFloat(0x7fc00000u)
#define INF_F uintBitsToFloat(0x7f800000u)

// a ** b for float with C's special cases. Integral exponents multiply by
// squaring in double (close to correctly rounded); others use exp2/log2.
float pow_f(float a, float b) {
  if (b == 0.0 || a == 1.0) return 1.0;
  if (isnan(a) || isnan(b)) return NAN_F;
  bool b_int = floor(b) == b;
  bool b_odd = b_int && abs(b) < 16777216.0 && (int(abs(b)) & 1) == 1;
  if (isinf(b)) {
    float aa = abs(a);
    if (aa == 1.0) return 1.0;
    return ((aa > 1.0) == (b > 0.0)) ? INF_F : 0.0;
  }
  if (a == 0.0 || isinf(a)) {
    bool big = (a == 0.0) == (b < 0.0);  // 0^-b and inf^b are infinite
    float r = big ? INF_F : 0.0;
    return (b_odd && (floatBitsToUint(a) >> 31) != 0u) ? -r : r;
  }
  if (a < 0.0 && !b_int) return NAN_F;
  float r;
  if (b_int && abs(b) <= 1048576.0) {
    double base = double(abs(a)), acc = 1.0lf;
    uint e = uint(abs(b));
    while (e != 0u) {
      if ((e & 1u) != 0u) acc *= base;
      base *= base;
      e >>= 1;
    }
    r = b < 0.0 ? float(1.0lf / acc) : float(acc);
  } else {
    r = exp2(b * log2(abs(a)));
  }
  return b_odd && a < 0.0 ? -r : r;
}

// PyTorch's floor division of floats: floor of the exact quotient, which the
// double quotient of two floats rounds to correctly.
float floor_div_f(float a, float b) {
  if (b == 0.0) return a / b;
  float q = float(floor(double(a) / double(b)));
  if (q == 0.0) return (floatBitsToUint(a) >> 31) != (floatBitsToUint(b) >> 31) ? -0.0 : 0.0;
  return q;
}
double floor_div_f(double a, double b) {
  if (b == 0.0lf) return a / b;
  double q = floor(a / b);
  if (q == 0.0lf) return (a < 0.0lf) != (b < 0.0lf) ? -0.0lf : 0.0lf;
  return q;
}
