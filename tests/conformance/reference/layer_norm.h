// Reference definition of layer_norm (PyTorch's forward semantics).
//
// `scale`, where given, gets a per-element error bound: the rounding a kernel
// working in a dtype with machine epsilon eps may honestly commit, in units of
// eps, whatever order it adds in. Accumulations run in long double.
#pragma once

#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// layer_norm over the last `normalized_dims` dims of input: (x - mean) /
// sqrt(var + eps) * weight + bias, var the biased variance. weight and bias
// (nullptr: none) have the normalized dims' shape.
Tensor layer_norm(const Tensor& input, int64_t normalized_dims, const Tensor* weight,
                  const Tensor* bias, double eps, std::vector<double>* scale = nullptr);

// The gradient of layer_norm with respect to its input, given grad: per row,
// rstd (gw - mean(gw) - xhat mean(gw xhat)), gw = grad * weight, xhat =
// (x - mean) rstd. `scale` gets the size of those terms times rstd.
Tensor layer_norm_backward(const Tensor& grad, const Tensor& input, int64_t normalized_dims,
                           const Tensor* weight, double eps, std::vector<double>* scale = nullptr);

}  // namespace plexus::ref
