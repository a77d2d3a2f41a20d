// The argument rules of catalog ops that every backend's kernel applies the
// same way, stated once: a kernel reads its arguments with these instead of
// repeating the check, so every plugin refuses the same call with the same
// words. The host's meta functions check shapes and dtypes before a kernel
// runs; what is here is what only a kernel can see (values in device
// memory), or what a kernel must still decode (mode strings, bounds).
//
// nvcc compiles this header too (plugins/cuda), so messages are built as
// strings, not with fmt (see error.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "plexus/plugin.h"
#include "plexus/sdk/args.hpp"
#include "plexus/sdk/dtype.hpp"
#include "plexus/sdk/elementwise.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// ---- every op with an out: dtypes --------------------------------------------

// Throws unless out has self's dtype: the host converts self to out's dtype
// before a reduction or softmax reaches a kernel.
inline void check_same_dtype(const plexus_tensor& self, const plexus_tensor& out) {
  if (self.dtype != out.dtype)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string("self is ") + dtype_name(self.dtype) +
                                            " but out is " + dtype_name(out.dtype) +
                                            " (expected equal: the host converts self first)");
}

// ---- sum, mean, amax, amin: dim -----------------------------------------------

// The dims a reduction reduces: the int[]? at position `pos` as the host
// normalized it (wrapped, ascending, distinct), every dim of self when it is
// None or empty (a 0-d self: none, its one element reduced). A dim outside
// self's is refused, not indexed with.
inline std::vector<int64_t> reduced_dims(const Args& args, int64_t pos, const plexus_tensor& self) {
  std::vector<int64_t> dims;
  if (auto given = args.optional_int_list(pos)) dims.assign(given->begin(), given->end());
  if (dims.empty())
    for (int32_t d = 0; d < self.ndim; ++d) dims.push_back(d);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0 || dims[i] >= self.ndim || (i > 0 && dims[i] <= dims[i - 1]))
      fail(PLEXUS_ERROR_INVALID_ARGUMENT,
           "dim " + std::to_string(dims[i]) + " (expected dims in [0, " +
               std::to_string(self.ndim) +
               "), ascending and distinct, as the host normalizes them)");
  return dims;
}

// ---- div: rounding_mode ------------------------------------------------------

enum class Rounding { True, Trunc, Floor };

// div.out_mode's rounding_mode at position `pos`: None is true division,
// else 'trunc' or 'floor'; anything else is refused, naming what came.
inline Rounding rounding_mode(const Args& args, int64_t pos) {
  std::optional<std::string_view> mode = args.optional_string(pos);
  if (!mode) return Rounding::True;
  if (*mode == "trunc") return Rounding::Trunc;
  if (*mode == "floor") return Rounding::Floor;
  fail(PLEXUS_ERROR_INVALID_ARGUMENT,
       "rounding_mode must be None, 'trunc' or 'floor', got '" + std::string(*mode) + "'");
}

// True division of an integer dtype never reaches a kernel: the host
// computes it in float32 (the catalog's type promotion). A kernel asked for
// it refuses.
inline void check_division(plexus_dtype dtype, Rounding rounding) {
  if (rounding == Rounding::True && (kIntegralDTypes & PLEXUS_DTYPE_BIT(dtype)))
    fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string("true division of ") + dtype_name(dtype) +
                                            " (the host computes it in float32)");
}

// An integer divisor holding a zero: the call fails before anything is written.
[[noreturn]] inline void fail_division_by_zero() {
  fail(PLEXUS_ERROR_INVALID_ARGUMENT, "integer division by zero");
}

// Fails with fail_division_by_zero() when an element of `divisor` (an
// integer tensor read on the host) is 0; runs before anything is written.
template <typename T>
void check_no_zero_divisor(const TensorView<const T>& divisor) {
  bool zero = false;
  for_each(divisor, [&zero](const T& v) { zero = zero || v == T(0); });
  if (zero) fail_division_by_zero();
}

// ---- gelu: approximate -------------------------------------------------------

enum class GeluApproximation { None, Tanh };

// gelu's and gelu_backward's `approximate` at position `pos`: 'none' or 'tanh'.
inline GeluApproximation gelu_approximation(const Args& args, int64_t pos) {
  std::string_view mode = args.string(pos);
  if (mode == "none") return GeluApproximation::None;
  if (mode == "tanh") return GeluApproximation::Tanh;
  fail(PLEXUS_ERROR_INVALID_ARGUMENT,
       "approximate must be 'none' or 'tanh', got '" + std::string(mode) + "'");
}

// ---- clamp: bounds -----------------------------------------------------------

struct ClampBounds {
  std::optional<Scalar> min, max;
};

// clamp's bounds at positions min_pos and max_pos; at least one is given.
inline ClampBounds clamp_bounds(const Args& args, int64_t min_pos, int64_t max_pos) {
  ClampBounds b{args.optional_scalar(min_pos), args.optional_scalar(max_pos)};
  if (!b.min && !b.max)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT, "at least one of min and max must be given");
  return b;
}

// A clamp bound as compute type C. An integer bound saturates to C's range,
// so a bound outside it clamps nothing (or everything, to the type's limit);
// a floating C takes the bound as convert<C> does (a NaN bound stays NaN).
template <typename C>
C clamp_bound(const Scalar& s) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    int64_t v = s.to_int();
    constexpr auto lo = static_cast<int64_t>(std::numeric_limits<C>::lowest());
    constexpr auto hi = static_cast<int64_t>(std::numeric_limits<C>::max());  // no uint64 dtype
    return static_cast<C>(v < lo ? lo : v > hi ? hi : v);
  } else {
    return s.to<C>();
  }
}

// ---- embedding, embedding_backward, index_select: indices ---------------------

// The index dtypes these ops take: int32 or int64. `what` names the argument.
inline void check_index_dtype(plexus_dtype dtype, const char* what) {
  if (dtype != PLEXUS_DTYPE_I64 && dtype != PLEXUS_DTYPE_I32)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         std::string(what) + " must be int32 or int64, got " + dtype_name(dtype));
}

// embedding(weight, indices) -> out: a 2-D weight, out of indices' dims plus
// one, int32 or int64 indices.
inline void check_embedding(const plexus_tensor& weight, const plexus_tensor& indices,
                            const plexus_tensor& out) {
  if (weight.ndim != 2 || out.ndim != indices.ndim + 1)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         "expected a 2-D weight and out of indices' dims plus one, got weight of " +
             std::to_string(weight.ndim) + " dims, indices of " + std::to_string(indices.ndim) +
             " and out of " + std::to_string(out.ndim));
  check_index_dtype(indices.dtype, "indices");
}

// embedding_backward(grad, indices) -> out [num_weights, dim].
inline void check_embedding_backward(const plexus_tensor& grad, const plexus_tensor& indices,
                                     const plexus_tensor& out) {
  if (out.ndim != 2 || grad.ndim != indices.ndim + 1)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         "expected a 2-D out and grad_output of indices' dims plus one, got out of " +
             std::to_string(out.ndim) + " dims, grad_output of " + std::to_string(grad.ndim) +
             " and indices of " + std::to_string(indices.ndim));
  check_index_dtype(indices.dtype, "indices");
}

// "[i, j, ...]": the position of t's element number `linear` in row-major
// order ("" for a 0-d tensor).
inline std::string element_position(const plexus_tensor& t, int64_t linear) {
  if (t.ndim == 0) return "";
  std::string s;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    int64_t n = t.sizes[d] > 0 ? t.sizes[d] : 1;
    s = std::to_string(linear % n) + (s.empty() ? "" : ", ") + s;
    linear /= n;
  }
  return "[" + s + "]";
}

// The error for an index out of [0, limit): "indices[1, 2] = 7 is out of
// range for weight with 5 rows (expected 0 <= index < 5)". `name` is the
// argument, `linear` the element's row-major number in it, `range` what
// the index picks from ("weight with 5 rows").
[[noreturn]] inline void fail_index_out_of_range(const char* name, const plexus_tensor& t,
                                                 int64_t linear, int64_t value, int64_t limit,
                                                 const std::string& range) {
  fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(name) + element_position(t, linear) + " = " +
                                          std::to_string(value) + " is out of range for " + range +
                                          " (expected 0 <= index < " + std::to_string(limit) + ")");
}

// The first element of `values` (indices read on the host) outside
// [0, limit), as its row-major number; -1 when every one is inside. Its
// value goes to *value.
template <typename I, typename View>
int64_t first_out_of_range(const View& values, int64_t limit, int64_t* value) {
  int64_t position = 0, bad = -1;
  for_each(values, [&](const I& v) {
    if (bad < 0 && (v < 0 || static_cast<int64_t>(v) >= limit)) {
      bad = position;
      *value = static_cast<int64_t>(v);
    }
    ++position;
  });
  return bad;
}

}  // namespace plexus::sdk
