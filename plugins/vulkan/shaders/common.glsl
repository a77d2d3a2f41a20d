// What every shader shares: the extensions, typed views of memory reached by
// buffer device address, bfloat16 conversions, and the elementwise push
// constants with the strided index computation.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(buffer_reference, scalar, buffer_reference_align = 1) buffer BufU8 { uint8_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 1) buffer BufI8 { int8_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer BufU16 { uint16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer BufI16 { int16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 2) buffer BufF16 { float16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer BufU32 { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer BufI32 { int v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer BufF32 { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer BufU64 { uint64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer BufI64 { int64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer BufF64 { double v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Meta { int v[]; };

// bfloat16 conversions: GLSL's spelling of plexus/sdk/half_bits.hpp's
// bfloat16_bits_to_float and float_to_bfloat16_bits, formula for formula, so the
// same bits (Note [16-bit float rounding and NaN]); change them together.
float bf16_to_f32(uint16_t b) { return uintBitsToFloat(uint(b) << 16); }

// Round to nearest even; NaN stays NaN, made quiet, sign and top payload kept.
uint16_t f32_to_bf16(float f) {
  uint u = floatBitsToUint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
