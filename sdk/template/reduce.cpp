// sum.IntList_out for float32, accumulating in double. The host passes `dim`
// as the dims of self to reduce (ascending, distinct; every dim for None).
#include <vector>

#include "kernels.h"

namespace toydev {
namespace {

// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *,
//                 ScalarType? dtype=None, Tensor(a!) out)
void sum_out(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  auto self = b.view<const float>(args.tensor(0));
  auto out = b.view<float>(args.tensor(4));
  sdk::Span<int64_t> dims = args.int_list(1);

  // One double accumulator per output element, contiguous in out's shape.
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  std::vector<int64_t> acc_strides(static_cast<size_t>(out.ndim()));
  for (int64_t d = out.ndim() - 1, s = 1; d >= 0; s *= out.size(int32_t(d)), --d)
    acc_strides[size_t(d)] = s;

  // The accumulators seen with self's shape: stride 0 along reduced dims, so
  // for_each adds every element of self into its output's accumulator.
  std::vector<int64_t> spread(static_cast<size_t>(self.ndim()), 0);
  bool keepdim = args.boolean(2);
  for (int32_t d = 0, od = 0, r = 0; d < self.ndim(); ++d) {
    bool reduced = r < dims.size() && dims[r] == d;
    if (reduced) ++r;
    if (!reduced) spread[size_t(d)] = acc_strides[size_t(od)];
    if (!reduced || keepdim) ++od;
  }
  sdk::TensorView<double> sums(acc.data(), self.ndim(), self.sizes(), spread.data());
  sdk::for_each(sums, self, [](double& a, float x) { a += x; });

  sdk::TensorView<const double> result(acc.data(), out.ndim(), out.sizes(), acc_strides.data());
  sdk::elementwise(out, result, [](double v) { return static_cast<float>(v); });
}

}  // namespace

void register_reduce_kernels(ToyBackend& backend) {
  backend.register_kernel<&sum_out>("sum.IntList_out", PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32));
}

}  // namespace toydev
