// Window arithmetic shared by conv2d and max_pool2d's meta functions.
#pragma once

#include <array>

#include "plexus/meta.h"

namespace plexus::catalog {

// An int[2] argument given as one or two values; each must be at least `min`.
// The kernel gets two values.
inline std::array<int64_t, 2> pair_arg(MetaContext& ctx, size_t i, int64_t min, const char* rule) {
  IntArrayRef v = ctx.int_list(i);
  PLEXUS_CHECK_ARG(v.size() == 1 || v.size() == 2, ctx.name(i),
                   "expected one or two values (height, width), got {}", shape_str(v));
  std::array<int64_t, 2> p{v[0], v.back()};
  PLEXUS_CHECK_ARG(p[0] >= min && p[1] >= min, ctx.name(i), "must be {}, got {}", rule,
                   shape_str(v));
  ctx.set_int_list(i, {p[0], p[1]});
  return p;
}

// A sliding window along one dim: the padded input length and the dilated
// window length. Throws naming `arg` when either overflows.
struct Window {
  int64_t padded;  // input + 2 * padding
  int64_t span;    // dilation * (kernel - 1) + 1
};
inline Window window(MetaContext& ctx, size_t arg, int64_t in, int64_t k, int64_t p, int64_t d) {
  Window w{};
  bool overflow =
      __builtin_mul_overflow(p, 2, &w.padded) || __builtin_add_overflow(w.padded, in, &w.padded) ||
      __builtin_mul_overflow(d, k - 1, &w.span) || __builtin_add_overflow(w.span, 1, &w.span);
  PLEXUS_CHECK_ARG(!overflow, ctx.name(arg), "window sizes overflow int64");
  return w;
}

// Floor division for a possibly negative numerator and a positive divisor.
inline int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

}  // namespace plexus::catalog
