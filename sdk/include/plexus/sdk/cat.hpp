// cat.out's arguments, checked once for every plugin. The host hands each
// input in out's dtype with out's sizes except along dim (legacy empty 1-D
// tensors removed), and dim already wrapped.
#pragma once

#include <cstdint>
#include <string>

#include "plexus/plugin.h"
#include "plexus/sdk/args.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// Checks every input before anything is written: same dtype and dims as out,
// out's sizes except along dim, and sizes along dim adding up to out's. Throws
// Error(INVALID_ARGUMENT) naming the input otherwise. Returns false when out
// has no elements (nothing to copy; dim may then be unwrapped).
inline bool check_cat(Span<plexus_tensor> tensors, int64_t dim, const plexus_tensor& out) {
  int64_t count = 1;
  for (int32_t d = 0; d < out.ndim; ++d) count *= out.sizes[d];
  if (count == 0) return false;
  if (dim < 0 || dim >= out.ndim)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         "cat: dim " + std::to_string(dim) + " is not a dim of out (the host wraps it)");
  int64_t total = 0;
  for (int64_t i = 0; i < tensors.size(); ++i) {
    const plexus_tensor& t = tensors[i];
    bool fits = t.dtype == out.dtype && t.ndim == out.ndim;
    for (int32_t d = 0; fits && d < t.ndim; ++d) fits = d == dim || t.sizes[d] == out.sizes[d];
    if (!fits)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT,
           "cat: tensors[" + std::to_string(i) + "] does not fit out along dim " +
               std::to_string(dim) + " (the host checks shapes and converts dtypes first)");
    total += t.sizes[dim];
  }
  if (total != out.sizes[dim])
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         "cat: the tensors' sizes along dim " + std::to_string(dim) + " add up to " +
             std::to_string(total) + ", but out has " + std::to_string(out.sizes[dim]));
  return true;
}

// The view of out that input t fills, starting at `at` along dim. Its sizes
// are t's (valid during the call); strides and storage are out's.
inline plexus_tensor cat_slice(const plexus_tensor& out, const plexus_tensor& t, int64_t dim,
                               int64_t at) {
  plexus_tensor slice = out;
  slice.sizes = t.sizes;
  slice.offset = out.offset + at * out.strides[dim];
  return slice;
}

}  // namespace plexus::sdk
