// softmax and log_softmax over one dim: shaders/softmax.comp, recorded by
// the rows runner (rows.cpp).
#include <string>
#include <vector>

#include "kernels.h"
#include "plexus/sdk/op_args.hpp"
#include "rows.h"

namespace plexus::vulkan {
namespace {

// Constant 0 (LOG) of shaders/softmax.comp.
enum SoftmaxOp { kSoftmax, kLogSoftmax };

// softmax.int_out / log_softmax.int_out(self, dim, dtype, *, out)
template <int Op>
void softmax_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  int64_t dim = a.integer(1);
  sdk::check_same_dtype(self, out);
  if (self.ndim == 0) {  // a 0-d tensor is one row of one element
    plexus_tensor x = self, y = out;
    static const int64_t one = 1, zero = 0;
    x.ndim = y.ndim = 1;
    x.sizes = y.sizes = &one;
    x.strides = y.strides = &zero;
    run_rows(b, call, "softmax", Op, x, y, {true}, nullptr, nullptr, 0);
    return;
  }
  if (dim < 0 || dim >= self.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "dim {} out of range for {} dims", dim, self.ndim);
  std::vector<bool> in_row(size_t(self.ndim), false);
  in_row[size_t(dim)] = true;
  run_rows(b, call, "softmax", Op, self, out, in_row, nullptr, nullptr, 0);
}

}  // namespace

void register_softmax(VulkanBackend& b) {
  b.register_kernel<&softmax_out<kSoftmax>>("softmax.int_out", sdk::kFloatingDTypes);
  b.register_kernel<&softmax_out<kLogSoftmax>>("log_softmax.int_out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
