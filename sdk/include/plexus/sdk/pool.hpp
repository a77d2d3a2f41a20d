// The window arguments of max_pool2d.out and max_pool2d_backward.out, read
// once for every plugin.
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

// Reads kernel_size, stride, padding and dilation (schema positions `first`
// to first + 3), which the host has already expanded to two values each, and
// checks that the tensors at `self_pos` and `out_pos` are 4-D. Throws
// Error(INVALID_ARGUMENT) naming `op` and the argument otherwise.
inline Pool2dWindow read_pool2d_window(const Args& a, int first, int self_pos, int out_pos,
                                       const char* op) {
  if (a.tensor(self_pos).ndim != 4 || a.tensor(out_pos).ndim != 4)
    fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(op) + ": expected 4-D self and out");
  Pool2dWindow w{};
  int64_t* fields[4] = {w.kernel, w.stride, w.padding, w.dilation};
  const char* names[4] = {"kernel_size", "stride", "padding", "dilation"};
  for (int i = 0; i < 4; ++i) {
    Span<int64_t> v = a.int_list(first + i);
    if (v.size() != 2)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(op) + ": " + names[i] +
                                              " must have two values, got " +
                                              std::to_string(v.size()));
    fields[i][0] = v[0];
    fields[i][1] = v[1];
  }
  return w;
}

// max_pool2d.out(self, kernel_size, stride, padding, dilation, ceil_mode, out)
inline Pool2dWindow read_max_pool2d_window(const Args& a) {
  return read_pool2d_window(a, 1, 0, 6, "max_pool2d");
}
// max_pool2d_backward.out(grad_output, self, kernel_size, stride, padding,
// dilation, ceil_mode, out)
inline Pool2dWindow read_max_pool2d_backward_window(const Args& a) {
  return read_pool2d_window(a, 2, 1, 7, "max_pool2d_backward");
}

}  // namespace plexus::sdk
