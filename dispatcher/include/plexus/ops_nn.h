// C++ API: reductions, matrix products, neural-network ops and cat.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "plexus/tensor.h"

namespace plexus {

// Reductions over `dim` (None or empty: every dim). keepdim leaves size-1 dims.
// Sum of self; integral and bool inputs give int64 unless dtype is given.
Tensor sum(const Tensor& self, std::optional<std::vector<int64_t>> dim = std::nullopt,
           bool keepdim = false, std::optional<DType> dtype = std::nullopt);
const Tensor& sum_out(const Tensor& out, const Tensor& self,
                      std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
                      std::optional<DType> dtype = std::nullopt);
// Mean of self; integral inputs need a floating dtype.
Tensor mean(const Tensor& self, std::optional<std::vector<int64_t>> dim = std::nullopt,
            bool keepdim = false, std::optional<DType> dtype = std::nullopt);
const Tensor& mean_out(const Tensor& out, const Tensor& self,
                       std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false,
                       std::optional<DType> dtype = std::nullopt);
// Largest and smallest values; reduced dims must not be empty.
Tensor amax(const Tensor& self, std::vector<int64_t> dim = {}, bool keepdim = false);
const Tensor& amax_out(const Tensor& out, const Tensor& self, std::vector<int64_t> dim = {},
                       bool keepdim = false);
Tensor amin(const Tensor& self, std::vector<int64_t> dim = {}, bool keepdim = false);
const Tensor& amin_out(const Tensor& out, const Tensor& self, std::vector<int64_t> dim = {},
                       bool keepdim = false);
// int64 index of the largest / smallest value along dim (None: of self flattened).
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
const Tensor& argmax_out(const Tensor& out, const Tensor& self,
                         std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
const Tensor& argmin_out(const Tensor& out, const Tensor& self,
                         std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// Matrix products. Operands share one dtype (no promotion).
// [n, k] @ [k, p] -> [n, p]
Tensor mm(const Tensor& self, const Tensor& mat2);
const Tensor& mm_out(const Tensor& out, const Tensor& self, const Tensor& mat2);
// [b, n, k] @ [b, k, p] -> [b, n, p]
Tensor bmm(const Tensor& self, const Tensor& mat2);
const Tensor& bmm_out(const Tensor& out, const Tensor& self, const Tensor& mat2);
// beta * self + alpha * (mat1 @ mat2); self broadcasts to [n, p].
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1,
             Scalar alpha = 1);
const Tensor& addmm_out(const Tensor& out, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1);
// The product of 1-D (vector), 2-D (matrix) and batched operands, as in NumPy.
Tensor matmul(const Tensor& self, const Tensor& other);
// input @ weight.T + bias; bias may be undefined (none).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// Softmax and its log along dim, computed in dtype when given (floating only).
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
const Tensor& softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
const Tensor& log_softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                              std::optional<DType> dtype = std::nullopt);
// The gradients of softmax and log_softmax with respect to their input, given
// grad_output and the forward's result `output` (same shape and dtype).
Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim);
// Normalizes over the trailing dims normalized_shape, then scales by weight
// and shifts by bias (each undefined or of shape normalized_shape).
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
const Tensor& layer_norm_out(const Tensor& out, const Tensor& input, IntArrayRef normalized_shape,
                             const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5);
// The gradient of layer_norm's result with respect to its input (weight
// undefined: none); the gradients of weight and bias are g * xhat and g.
Tensor layer_norm_backward(const Tensor& grad_output, const Tensor& input,
                           IntArrayRef normalized_shape, const Tensor& weight = {},
                           double eps = 1e-5);
// 2-D convolution of input [N, C, H, W] (or unbatched [C, H, W]) with weight
// [C_out, C / groups, kH, kW]. Lists take one value (both dims) or two.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = {1, 1}, IntArrayRef padding = {0, 0},
              IntArrayRef dilation = {1, 1}, int64_t groups = 1);
const Tensor& conv2d_out(const Tensor& out, const Tensor& input, const Tensor& weight,
                         const Tensor& bias = {}, IntArrayRef stride = {1, 1},
                         IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
                         int64_t groups = 1);
// The gradients of the activations, given grad_output and the forward's input
// (self) or result (output): relu's is threshold_backward(g, result, 0).
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold);
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output);
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output);
Tensor silu_backward(const Tensor& grad_output, const Tensor& self);
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate = "none");
// The gradients of conv2d's result with respect to its input and its weight,
// given grad_output of the result's shape [N, C_out, oH, oW] (4-D only), the
// forward's input or weight sizes and its stride, padding, dilation and groups.
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             IntArrayRef input_size, IntArrayRef stride = {1, 1},
                             IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
                             int64_t groups = 1);
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              IntArrayRef weight_size, IntArrayRef stride = {1, 1},
                              IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
                              int64_t groups = 1);
// 2-D max pooling of [N, C, H, W] (or [C, H, W]); an empty stride means kernel_size.
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
                  bool ceil_mode = false);
const Tensor& max_pool2d_out(const Tensor& out, const Tensor& self, IntArrayRef kernel_size,
                             IntArrayRef stride = {}, IntArrayRef padding = {0, 0},
                             IntArrayRef dilation = {1, 1}, bool ceil_mode = false);
// The gradient of max_pool2d's result with respect to self (4-D only): each
// window's grad_output goes to its maximum (first on ties, NaN first).
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           IntArrayRef kernel_size, IntArrayRef stride = {},
                           IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
                           bool ceil_mode = false);
// Rows of weight [num, dim] picked by int32/int64 indices: indices.shape + [dim].
// padding_idx (-1: none) and the flags only matter for gradients.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
const Tensor& embedding_out(const Tensor& out, const Tensor& weight, const Tensor& indices,
                            int64_t padding_idx = -1, bool scale_grad_by_freq = false,
                            bool sparse = false);
// The slices of self along dim named by index (int32/int64, 0-d or 1-D), in
// its order: X[rows] is index_select(X, 0, rows).
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
const Tensor& index_select_out(const Tensor& out, const Tensor& self, int64_t dim,
                               const Tensor& index);
// The gradient of embedding's result with respect to its weight [num_weights,
// dim]: each position's gradient row added into the row its index picked.
Tensor embedding_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx = -1, bool scale_grad_by_freq = false);
// Squared error; reduction 0 keeps every element, 1 averages them, 2 sums them.
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
// mse_loss's gradient with respect to self (target's is its negative):
// norm (self - target) grad_output, norm = 2 / numel for mean, else 2.
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction = 1);

// The tensors joined along dim (promoted to a common dtype); 1-D empty
// tensors are skipped.
Tensor cat(std::span<const Tensor> tensors, int64_t dim = 0);
Tensor cat(std::initializer_list<Tensor> tensors, int64_t dim = 0);
const Tensor& cat_out(const Tensor& out, std::span<const Tensor> tensors, int64_t dim = 0);
const Tensor& cat_out(const Tensor& out, std::initializer_list<Tensor> tensors, int64_t dim = 0);

}  // namespace plexus
