// Reference definition of max_pool2d (PyTorch's forward semantics).
#pragma once

#include <array>
#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

struct Pool2dParams {
  std::array<int64_t, 2> kernel{1, 1}, stride{1, 1}, padding{0, 0}, dilation{1, 1};
  bool ceil_mode = false;
};
// The output length of a pooling window along one dim, PyTorch's rule:
// floor (or ceil) of (in + 2p - d(k - 1) - 1) / s, plus 1, where with
// ceil_mode the last window must start inside the input or the left padding.
int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);
// max_pool2d of a 4-D self: the maximum of each window, positions outside
// the input (padding) ignored, as if -inf; NaN wins over every number.
Tensor max_pool2d(const Tensor& self, const Pool2dParams& p);
// max_pool2d_backward: grad_output (of max_pool2d's result shape) added at
// each window's maximum: the first tap inside the input in row-major order
// holding it, a NaN before any number; a window of -inf gives it to its first
// tap inside the input. `scale` gets sum |g| per element of the result.
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& self, const Pool2dParams& p,
                           std::vector<double>* scale = nullptr);


}  // namespace plexus::ref
