// float16 and bfloat16 conversions: the SDK's (plexus/sdk/half_bits.hpp), the
// one implementation plugins and the host share, behind libplexus's symbols.
#include "plexus/half.h"

#include "plexus/sdk/half_bits.hpp"

namespace plexus {

uint16_t float_to_half_bits(float f) {
  return sdk::float_to_half_bits(f);
}
uint16_t double_to_half_bits(double d) {
  return sdk::double_to_half_bits(d);
}
float half_bits_to_float(uint16_t h) {
  return sdk::half_bits_to_float(h);
}
uint16_t float_to_bfloat16_bits(float f) {
  return sdk::float_to_bfloat16_bits(f);
}
uint16_t double_to_bfloat16_bits(double d) {
  return sdk::double_to_bfloat16_bits(d);
}

}  // namespace plexus
