#version 460
// copy_: dst[i] = convert(src[i]) for any pair of dtypes, as plexus converts:
// to bool is != 0; floating to integer truncates, NaN gives 0, out of range
// saturates; integer to integer wraps; integers reach float16/bfloat16
// through float. Same dtype (not bool): the bits move unchanged.
#include "common.glsl"
#include "elementwise.glsl"

// plexus_dtype values
#define D_BOOL 0
#define D_U8 1
#define D_I8 2
#define D_I16 3
#define D_I32 4
#define D_I64 5
#define D_F16 6
#define D_BF16 7
#define D_F32 8
#define D_F64 9
layout(constant_id = 0) const int SRC = D_F32;
layout(constant_id = 1) const int DST = D_F32;

bool is_float(int d) { return d >= D_F16; }

// double to float rounded to odd: rounding that once more to a format at
// least two bits narrower (float16, bfloat16) rounds v correctly, once.
float to_float_odd(double v) {
  float f = float(v);
  if (isnan(v) || double(f) == v) return f;
  uint u = floatBitsToUint(f);
  if (abs(double(f)) > abs(v)) u -= 1u;
  return uintBitsToFloat(u | 1u);
}

// The source element as a double (floating sources) or int64 (the others).
double load_f(uint64_t a, int i) {
  if (SRC == D_F16) return double(BufF16(a).v[i]);
  if (SRC == D_BF16) return double(bf16_to_f32(BufU16(a).v[i]));
  if (SRC == D_F32) return double(BufF32(a).v[i]);
  return BufF64(a).v[i];
}
int64_t load_i(uint64_t a, int i) {
  if (SRC == D_BOOL) return BufU8(a).v[i] != uint8_t(0) ? 1l : 0l;
  if (SRC == D_U8) return int64_t(BufU8(a).v[i]);
  if (SRC == D_I8) return int64_t(BufI8(a).v[i]);
  if (SRC == D_I16) return int64_t(BufI16(a).v[i]);
  if (SRC == D_I32) return int64_t(BufI32(a).v[i]);
  return BufI64(a).v[i];
}

// Floating to integer: truncate, NaN -> 0, saturate to [lo, hi].
int64_t saturate(double v, double lo, double hi, int64_t ilo, int64_t ihi) {
  if (isnan(v)) return 0l;
  if (v <= lo) return ilo;
  if (v >= hi) return ihi;
  return int64_t(v);
}

void store_int(uint64_t a, int i, int64_t v) {
  if (DST == D_BOOL) BufU8(a).v[i] = uint8_t(v != 0l ? 1 : 0);
  else if (DST == D_U8) BufU8(a).v[i] = uint8_t(v);
  else if (DST == D_I8) BufI8(a).v[i] = int8_t(v);
  else if (DST == D_I16) BufI16(a).v[i] = int16_t(v);
  else if (DST == D_I32) BufI32(a).v[i] = int(v);
  else BufI64(a).v[i] = v;
}

void convert(uint64_t dst, int di, uint64_t src, int si) {
  if (is_float(SRC)) {
    double v = load_f(src, si);
    if (DST == D_F16) BufF16(dst).v[di] = float16_t(SRC == D_F64 ? to_float_odd(v) : float(v));
    else if (DST == D_BF16) BufU16(dst).v[di] = f32_to_bf16(SRC == D_F64 ? to_float_odd(v) : float(v));
    else if (DST == D_F32) BufF32(dst).v[di] = float(v);
    else if (DST == D_F64) BufF64(dst).v[di] = v;
    else if (DST == D_BOOL) BufU8(dst).v[di] = uint8_t(v != 0.0 ? 1 : 0);
    else if (DST == D_U8) store_int(dst, di, saturate(v, 0.0, 255.0, 0l, 255l));
    else if (DST == D_I8) store_int(dst, di, saturate(v, -128.0, 127.0, -128l, 127l));
    else if (DST == D_I16) store_int(dst, di, saturate(v, -32768.0, 32767.0, -32768l, 32767l));
    else if (DST == D_I32)
      store_int(dst, di, saturate(v, -2147483648.0, 2147483647.0, -2147483648l, 2147483647l));
    else
      store_int(dst, di, saturate(v, -9223372036854775808.0, 9223372036854775807.0,
                                  -9223372036854775807l - 1l, 9223372036854775807l));
  } else {
    int64_t v = load_i(src, si);
    if (DST == D_F16) BufF16(dst).v[di] = float16_t(float(v));
    else if (DST == D_BF16) BufU16(dst).v[di] = f32_to_bf16(float(v));
    else if (DST == D_F32) BufF32(dst).v[di] = float(v);
    else if (DST == D_F64) BufF64(dst).v[di] = double(v);
    else store_int(dst, di, v);
  }
}

void main() {
  FOR_EACH_ELEMENT(i) {
    ivec4 o = offsets(i);
    if (SRC == DST && SRC != D_BOOL) {
      if (SRC <= D_I8) BufU8(el_t[0]).v[o.x] = BufU8(el_t[1]).v[o.y];
      else if (SRC == D_I16 || SRC == D_F16 || SRC == D_BF16) BufU16(el_t[0]).v[o.x] = BufU16(el_t[1]).v[o.y];
      else if (SRC == D_I32 || SRC == D_F32) BufU32(el_t[0]).v[o.x] = BufU32(el_t[1]).v[o.y];
      else BufU64(el_t[0]).v[o.x] = BufU64(el_t[1]).v[o.y];
    } else {
      convert(el_t[0], o.x, el_t[1], o.y);
    }
  }
}
