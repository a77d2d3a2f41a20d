// Floating functions with PyTorch's semantics. GLSL has no exp/log/sin for
// double and its float builtins need not be accurate to 2 ulps, so these are
// computed in double (argument reduction plus series) and rounded once.

#define NAN_F uintBitsToFloat(0x7fc00000u)
#define INF_F uintBitsToFloat(0x7f800000u)
#define NAN_D uint64BitsToDouble(0x7ff8000000000000ul)
#define INF_D uint64BitsToDouble(0x7ff0000000000000ul)
const double LN2_HI = 6.93147180369123816490e-01lf, LN2_LO = 1.90821492927058770002e-10lf;

// e^x
double exp_d(double x) {
  if (isnan(x)) return x;
  if (x > 709.8lf) return INF_D;
  if (x < -745.2lf) return 0.0lf;
  double n = round(x * 1.4426950408889634lf);
  double r = (x - n * LN2_HI) - n * LN2_LO;  // |r| <= 0.35
  double term = 1.0lf, sum = 1.0lf;
  for (int k = 1; k <= 14; ++k) {
    term *= r / double(k);
    sum += term;
  }
  int e = int(n);  // split the scaling so that neither factor overflows
  return ldexp(ldexp(sum, e / 2), e - e / 2);
}

// e^x - 1, accurate near 0
double expm1_d(double x) {
  if (abs(x) >= 0.5lf) return exp_d(x) - 1.0lf;
  double term = x, sum = x;
  for (int k = 2; k <= 18; ++k) {
    term *= x / double(k);
    sum += term;
  }
  return sum;
}

// natural log
double log_d(double x) {
  if (isnan(x) || x < 0.0lf) return NAN_D;
  if (x == 0.0lf) return -INF_D;
  if (isinf(x)) return x;
  int e;
  double m = frexp(x, e);  // x = m 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752lf) {
    m *= 2.0lf;
    e -= 1;
  }
  double s = (m - 1.0lf) / (m + 1.0lf), s2 = s * s, term = s, sum = 0.0lf;
  for (int k = 1; k <= 41; k += 2) {
    sum += term / double(k);
    term *= s2;
  }
  return 2.0lf * sum + double(e) * LN2_HI + double(e) * LN2_LO;
}

// sin (cosine: cos) of r + q pi/2 for |r| <= pi/4, by series.
double sincos_reduced(double r, int q, bool cosine) {
  q = (q + (cosine ? 1 : 0)) & 3;
  double r2 = r * r, s = r, c = 1.0lf, ts = r, tc = 1.0lf;
  for (int i = 1; i <= 11; ++i) {
    ts *= -r2 / double((2 * i) * (2 * i + 1));
    tc *= -r2 / double((2 * i - 1) * (2 * i));
    s += ts;
    c += tc;
  }
  return q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
}

// The bits of 2/pi after the binary point, 24 at a time.
const uint TWO_OVER_PI[12] = uint[](0xA2F983u, 0x6E4E44u, 0x1529FCu, 0x2757D1u, 0xF534DDu,
                                    0xC0DB62u, 0x95993Cu, 0x439041u, 0xFE5163u, 0xABDEBBu,
                                    0xC561B7u, 0x246E3Au);

// sin/cos of a float32 value of any size (Payne-Hanek): |x| * 2/pi modulo 4
// in 98-bit fixed point from the bits of 2/pi that matter for x's exponent.
double sincos_big(float x, bool cosine) {
  uint u = floatBitsToUint(abs(x));
  int e = int(u >> 23) - 150;  // |x| = m 2^e
  uint64_t m = uint64_t((u & 0x7fffffu) | 0x800000u);
  int j0 = e > 1 ? (e - 1 + 23) / 24 - 1 : 0;  // the first chunk below 4 quarter turns
  uint64_t hi = 0ul, lo = 0ul;                  // value * 2^96 = hi:lo
  for (int j = j0; j < j0 + 5 && j < 12; ++j) {
    int sh = 96 + e - 24 * (j + 1);
    uint64_t p = m * uint64_t(TWO_OVER_PI[j]), h = 0ul, l = 0ul;
    if (sh >= 64) h = p << uint(sh - 64);
    else if (sh > 0) { h = p >> uint(64 - sh); l = p << uint(sh); }
    else if (sh > -64) l = p >> uint(-sh);
    lo += l;
    hi += h + (lo < l ? 1ul : 0ul);
  }
  int q = int((hi >> 32) & 3ul);
  uint64_t fh = hi & 0xfffffffful;  // the fraction of a quarter turn: fh:lo
  bool upper = (fh >> 31) != 0ul;
  if (upper) {  // at least half a quarter turn: measure back from the next one
    lo = ~lo + 1ul;
    fh = (~fh + (lo == 0ul ? 1ul : 0ul)) & 0xfffffffful;
    q += 1;
  }
  double f = double(fh) * 2.3283064365386963e-10lf + double(lo) * 1.2621774483536189e-29lf;
  double r = (upper ? -f : f) * 1.5707963267948966lf;
  double v = sincos_reduced(r, q, cosine);
  return (!cosine && x < 0.0) ? -v : v;
}

// sin(x) (cosine when `cosine`): reduction by pi/2 in three parts up to 2^20
// quarter turns, beyond that sincos_big (x is then a float32 value).
double sincos_d(double x, bool cosine) {
  if (isnan(x) || isinf(x)) return NAN_D;
  if (abs(x) > 1.5e6lf) return sincos_big(float(x), cosine);
  const double P1 = 1.57079632673412561417e+00lf, P2 = 6.07710050650619224932e-11lf,
               P3 = 2.02226624879595063154e-21lf;
  double k = round(x * 0.63661977236758134308lf);
  double r = ((x - k * P1) - k * P2) - k * P3;
  return sincos_reduced(r, int(mod(k, 4.0lf)), cosine);
}

double tanh_d(double x) {
  if (isnan(x)) return x;
  double a = abs(x);
  if (a > 20.0lf) return x > 0.0lf ? 1.0lf : -1.0lf;
  double e = expm1_d(2.0lf * a);
  double t = e / (e + 2.0lf);
  return x < 0.0lf ? -t : t;
}

// 1 / (1 + e^-x)
double sigmoid_d(double x) { return 1.0lf / (1.0lf + exp_d(-x)); }

// erf(x): series below 2.5, continued fraction of erfc above.
double erf_d(double x) {
  if (isnan(x)) return x;
  double a = abs(x);
  if (a < 2.5lf) {
    double x2 = a * a, term = a, sum = a;
    for (int n = 1; n < 60; ++n) {
      term *= -x2 / double(n);
      sum += term / double(2 * n + 1);
    }
    double r = sum * 1.12837916709551257390lf;  // 2 / sqrt(pi)
    return x < 0.0lf ? -r : r;
  }
  if (a > 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  // erfc(a) = exp(-a^2) / sqrt(pi) * 1 / (a + 1/2 / (a + 1 / (a + 3/2 / (a + ...))))
  double f = a;
  for (int k = 60; k >= 1; --k) f = a + (double(k) * 0.5lf) / f;
  double erfc = exp_d(-a * a) / f * 0.56418958354775628695lf;  // 1 / sqrt(pi)
  return x < 0.0lf ? erfc - 1.0lf : 1.0lf - erfc;
}

// 1 + erf(x) for x < 0 without cancellation (erfc(-x)).
double one_plus_erf_d(double x) {
  if (x >= -2.5lf || isnan(x)) return 1.0lf + erf_d(x);
  double a = -x;
  if (a > 27.0lf) return 0.0lf;
  double f = a;
  for (int k = 60; k >= 1; --k) f = a + (double(k) * 0.5lf) / f;
  return exp_d(-a * a) / f * 0.56418958354775628695lf;
}

// a ** b with C's special cases. Integral exponents multiply by squaring;
// others go through exp(b log a), in double.
double pow_d(double a, double b) {
  if (b == 0.0lf || a == 1.0lf) return 1.0lf;
  if (isnan(a) || isnan(b)) return NAN_D;
  bool b_int = floor(b) == b;
  bool b_odd = b_int && abs(b) < 9007199254740992.0lf && mod(abs(b), 2.0lf) == 1.0lf;
  if (isinf(b)) {
    double aa = abs(a);
    if (aa == 1.0lf) return 1.0lf;
    return ((aa > 1.0lf) == (b > 0.0lf)) ? INF_D : 0.0lf;
  }
  bool negative = (floatBitsToUint(float(a)) >> 31) != 0u;
  if (a == 0.0lf || isinf(a)) {
    bool big = (a == 0.0lf) == (b < 0.0lf);  // 0^-b and inf^b are infinite
    double r = big ? INF_D : 0.0lf;
    return (b_odd && negative) ? -r : r;
  }
  if (a < 0.0lf && !b_int) return NAN_D;
  double r;
  if (b_int && abs(b) <= 64.0lf) {
    double base = abs(a), acc = 1.0lf;
    uint e = uint(abs(b));
    while (e != 0u) {
      if ((e & 1u) != 0u) acc *= base;
      base *= base;
      e >>= 1;
    }
    r = b < 0.0lf ? 1.0lf / acc : acc;
  } else {
    r = exp_d(b * log_d(abs(a)));
  }
  return b_odd && a < 0.0lf ? -r : r;
}

// C's fmod, exact: subtracts b scaled by powers of two (each step exact by
// Sterbenz's lemma) until the remainder is below |b|.
double fmod_d(double a, double b) {
  if (isnan(a) || isnan(b) || isinf(a) || b == 0.0lf) return NAN_D;
  if (isinf(b)) return a;
  double r = abs(a), d = abs(b);
  while (r >= d) {
    int er, ed;
    frexp(r, er);
    frexp(d, ed);
    double step = ldexp(d, er - ed);
    if (step > r) step = ldexp(d, er - ed - 1);
    r -= step;
  }
  return a < 0.0lf ? -r : r;
}

// PyTorch's floor division (Python's //): from the remainder, as in C's fmod.
double floor_div_d(double a, double b) {
  if (b == 0.0lf) return a / b;
  double m = fmod_d(a, b);
  double div = (a - m) / b;
  if (m != 0.0lf && (b < 0.0lf) != (m < 0.0lf)) div -= 1.0lf;
  if (div == 0.0lf) return (doubleBitsToUint64(a / b) >> 63) != 0ul ? -0.0lf : 0.0lf;
  double fl = floor(div);
  if (div - fl > 0.5lf) fl += 1.0lf;
  return fl;
}
