// Reference definitions of the nn ops: softmax, log_softmax, layer_norm,
// conv2d, max_pool2d, embedding (PyTorch's forward semantics). Results have
// the input's dtype and hold unrounded values; accumulations run in long
// double so that even a float64 reference is far more precise than the
// kernel it checks.
//
// The accumulating ops can also report, per output element, an error bound
// `scale`: the size of the rounding a kernel working in a dtype with machine
// epsilon eps may honestly commit, in units of eps (the result may be off by
// about eps * scale), whatever order it adds in.
#pragma once

#include <array>
#include <vector>

#include "reference/tensor.h"

namespace plexus::ref {

// softmax(self, dim) = exp(x_i) / sum_j exp(x_j) along dim, computed as
// exp(x_i - max) / sum_j exp(x_j - max) (log: (x_i - max) - log(sum)); a row
// holding NaN, +inf, or only -inf gives NaN throughout. A 0-d self is one row
// of one element.
Tensor softmax(const Tensor& self, int64_t dim, bool log, std::vector<double>* scale = nullptr);

// layer_norm over the last `normalized_dims` dims of input: (x - mean) /
// sqrt(var + eps) * weight + bias, var the biased variance. weight and bias
// (nullptr: none) have the normalized dims' shape.
Tensor layer_norm(const Tensor& input, int64_t normalized_dims, const Tensor* weight,
                  const Tensor* bias, double eps, std::vector<double>* scale = nullptr);

struct Conv2dParams {
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
};
// conv2d of input [N, C, H, W] with weight [C_out, C / groups, kH, kW] and
// bias [C_out] (nullptr: none); zero padding. `scale` gets sum |x * w| + |b|
// per output element (the size of the terms it adds).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor* bias, const Conv2dParams& p,
              std::vector<double>* scale = nullptr);

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

// embedding: out[..., :] = weight[indices[...], :]. Throws std::out_of_range
// for an index outside [0, num_embeddings).
Tensor embedding(const Tensor& weight, const Tensor& indices);

}  // namespace plexus::ref
