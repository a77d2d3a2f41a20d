// Reference definition of conv2d (PyTorch's forward semantics).
//
// `scale`, where given, gets a per-element error bound: the rounding a kernel
// working in a dtype with machine epsilon eps may honestly commit, in units of
// eps, whatever order it adds in. Accumulations run in long double.
#pragma once

#include <array>
#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

struct Conv2dParams {
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
};
// conv2d of input [N, C, H, W] with weight [C_out, C / groups, kH, kW] and
// bias [C_out] (nullptr: none); zero padding. `scale` gets sum |x * w| + |b|
// per output element (the size of the terms it adds).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor* bias, const Conv2dParams& p,
              std::vector<double>* scale = nullptr);

// The gradients of conv2d with respect to its input (of sizes input_sizes)
// and its weight (of sizes weight_sizes), given grad [N, C_out, oH, oW]: the
// adjoint of conv2d above, tap by tap. `scale` gets the sum of |terms| added
// into each element.
Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight, const Sizes& input_sizes,
                             const Conv2dParams& p, std::vector<double>* scale = nullptr);
Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& input, const Sizes& weight_sizes,
                              const Conv2dParams& p, std::vector<double>* scale = nullptr);

}  // namespace plexus::ref
