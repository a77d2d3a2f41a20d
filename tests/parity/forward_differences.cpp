// What the forward parity test does not hold against plexus, by name: the
// deliberate differences from PyTorch 1.13 (each a row of docs/semantics.md)
// and the catalog ops no aten op can be compared with. An entry that covers
// nothing fails the test, so the tables stay exact.
#include "parity/forward_parity.h"

namespace plexus::parity {

const std::vector<Difference>& differences() {
  // Kinds named as in docs/semantics.md; "libtorch:" marks a fault of
  // libtorch 1.13 where plexus matches the float64 reference.
  static const std::vector<Difference> table = {
      {"float to integer conversion of NaN, inf or out-of-range values", "copy_", "*int*", "from_*", "*"},
      {"float to integer conversion of NaN, inf or out-of-range values", "copy_", "*int8",
       "3d,bcast_3d,expanded_src_convert,stress,strided_convert,transposed_both", "*"},
      {"float to integer conversion of NaN, inf or out-of-range values", "to.dtype", "*", "special_to_*int*", "*"},
      {"float to integer conversion of NaN, inf or out-of-range values", "to.dtype", "*", "to_uint8", "*"},
      {"libtorch: float64 to float16/bfloat16 rounds twice (through float32)", "copy_", "*float16", "round_from_float64", "*"},
      {"fill_ of a floating value into an integer or bool tensor", "fill_.Scalar", "*", "float_*error", "*"},
      {"Scalars outside the tensor's range", "fill_.Scalar", "*", "int_*,float_huge,float_65520", "*"},
      {"Scalars outside the tensor's range", "clamp*", "*int*", "above_*,wide_*", "*"},
      {"floating or bool value for addcmul/addcdiv of another kind", "addc*", "*", "value_kind_mismatch", "*"},
      {"addmm with alpha = 0", "addmm*", "bfloat16", "alpha0_special_operands", "*"},
      {"cpu plugin: bfloat16 products flush subnormal inputs (plugins/cpu/xfail.txt)", "mm*,bmm*,addmm*", "bfloat16", "special", "*"},
      {"div with a rounding mode of an infinite dividend", "div*mode", "*float*", "special", "*"},
      {"libtorch: its vectorized float64 pow overflows for the largest double ** 1", "pow*Tensor*", "float64", "special", "*"},
      {"clamp with a NaN bound", "clamp*", "*float*", "nan_max_*", "*"},
      {"threshold_backward (relu's gradient) where self is NaN", "threshold_backward*", "*", "*special", "*"},
      {"libtorch: no float16 cpu kernel for softmax, even computed in float32", "*softmax.int*", "float16", "dtype_*", "*"},
      {"gradient ops check their arguments", "embedding_backward,log_softmax_backward,mse_loss_backward", "*", "error_*", "*"},
      {"where with a condition that is not bool", "where.self", "*", "condition_not_bool", "*"},
      {"random ops (uniform_, normal_, bernoulli_)", "uniform_,normal_,bernoulli_.float", "*", "*", "*"},
  };
  return table;
}

const std::vector<Difference>& torch_crashes() {
  static const std::vector<Difference> table = {
      {"libtorch 1.13 dies of SIGFPE on the integer division INT_MIN / -1 with a rounding mode "
       "(plexus wraps, as two's complement does)",
       "div*mode", "int*", "*special", "*"},
  };
  return table;
}

const std::vector<Unmatched>& unmatched_ops() {
  static const std::vector<Unmatched> table = {
      {"to.device", "moves a tensor between devices: with the cpu alone it is to.dtype, compared"},
      // Out forms aten lacks: their values are compared with aten's functional form.
      {"conv2d.out", "aten has no conv2d.out; compared with aten's conv2d"},
      {"max_pool2d.out", "aten has no max_pool2d.out; compared with aten's max_pool2d"},
      {"layer_norm.out", "aten has no layer_norm.out; compared with aten's layer_norm"},
      {"embedding_backward.out", "aten has no embedding_backward.out; compared with aten's embedding_backward"},
      // Gradient ops aten computes otherwise: no op of the same arguments.
      {"layer_norm_backward", "aten's native_layer_norm_backward takes the forward's saved mean and rstd"},
      {"layer_norm_backward.out", "as layer_norm_backward"},
      {"conv2d_backward_input", "aten's convolution_backward computes every gradient at once"},
      {"conv2d_backward_input.out", "as conv2d_backward_input"},
      {"conv2d_backward_weight", "aten's convolution_backward computes every gradient at once"},
      {"conv2d_backward_weight.out", "as conv2d_backward_weight"},
      {"max_pool2d_backward", "aten's max_pool2d_with_indices_backward takes the forward's indices"},
      {"max_pool2d_backward.out", "as max_pool2d_backward"},
      // Fused optimizer steps: aten 1.13's _fused_adam_ is cuda-only and takes
      // no 0-d lr; tests/optim checks them against PyTorch's update formulas.
      {"adam_step_", "plexus's fused Adam step; aten 1.13 has no cpu counterpart"},
      {"adam_step_.list", "as adam_step_"},
      {"adam_step_.amsgrad", "as adam_step_"},
      {"adam_step_.amsgrad_list", "as adam_step_"},
      {"sgd_step_", "plexus's fused SGD step; aten 1.13 has no counterpart"},
      {"sgd_step_.list", "as sgd_step_"},
  };
  return table;
}

}  // namespace plexus::parity
