// The device math and bit functions kernels call that the host's C library
// does not spell the same way (expf, sqrtf, fmaxf ... come from <cmath>).
#pragma once

#include <math.h>  // libstdc++ puts the float overloads (exp(float) ...) in the global namespace, as CUDA does

#include <cmath>
#include <cstdint>
#include <cstring>

inline float __expf(float x) {
  return std::exp(x);
}
inline float __logf(float x) {
  return std::log(x);
}
inline float __fdividef(float a, float b) {
  return a / b;
}
inline float rsqrtf(float x) {
  return 1.0f / std::sqrt(x);
}
inline double rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
inline float __saturatef(float x) {
  return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, sizeof i);
  return i;
}
inline float __int_as_float(int i) {
  float x;
  std::memcpy(&x, &i, sizeof x);
  return x;
}
inline unsigned __float_as_uint(float x) {
  return unsigned(__float_as_int(x));
}
inline float __uint_as_float(unsigned u) {
  return __int_as_float(int(u));
}
template <typename T>
T __ldg(const T* p) {
  return *p;
}
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
inline int __ffsll(long long x) {
  return __builtin_ffsll(x);
}

// CUDA's global min/max overloads.
#define SIMT_MINMAX(T)     \
  inline T min(T a, T b) { \
    return b < a ? b : a;  \
  }                        \
  inline T max(T a, T b) { \
    return a < b ? b : a;  \
  }
SIMT_MINMAX(int)
SIMT_MINMAX(unsigned)
SIMT_MINMAX(long long)
SIMT_MINMAX(unsigned long long)
#undef SIMT_MINMAX
inline float min(float a, float b) {
  return std::fmin(a, b);
}
inline float max(float a, float b) {
  return std::fmax(a, b);
}
inline double min(double a, double b) {
  return std::fmin(a, b);
}
inline double max(double a, double b) {
  return std::fmax(a, b);
}
