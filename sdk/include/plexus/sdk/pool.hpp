// max_pool2d.out's window arguments, read once for every plugin.
#pragma once

#include <cstdint>
#include <string>

#include "plexus/plugin.h"
#include "plexus/sdk/args.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// The (height, width) pairs of a 2-D pooling window.
struct Pool2dWindow {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

// Reads kernel_size, stride, padding and dilation (schema positions 1 to 4) of
// max_pool2d.out, which the host has already expanded to two values each, and
// checks that self and out (positions 0 and 6) are 4-D. Throws
// Error(INVALID_ARGUMENT) naming the argument otherwise.
inline Pool2dWindow read_max_pool2d_window(const Args& a) {
  if (a.tensor(0).ndim != 4 || a.tensor(6).ndim != 4)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT, "max_pool2d: expected 4-D self and out");
  Pool2dWindow w{};
  int64_t* fields[4] = {w.kernel, w.stride, w.padding, w.dilation};
  const char* names[4] = {"kernel_size", "stride", "padding", "dilation"};
  for (int i = 0; i < 4; ++i) {
    Span<int64_t> v = a.int_list(1 + i);
    if (v.size() != 2)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string("max_pool2d: ") + names[i] +
                                              " must have two values, got " +
                                              std::to_string(v.size()));
    fields[i][0] = v[0];
    fields[i][1] = v[1];
  }
  return w;
}

}  // namespace plexus::sdk
