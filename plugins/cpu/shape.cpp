// Shape-building kernels: cat.
#include <string>

#include "kernels.h"
#include "parallel.h"

namespace plexus::cpu {
namespace {

// Copies each tensor into its slice of out along dim, in order. Dense pieces
// take parallel_for's flat loop, the others its row-by-row one.
template <typename T>
void cat(sdk::Span<plexus_tensor> tensors, int64_t dim, const plexus_tensor& out) {
  int64_t at = 0;  // where the next piece starts along dim
  for (const plexus_tensor& t : tensors) {
    sdk::TensorView<const T> in(t);
    sdk::TensorView<T> slice(sdk::cat_slice(out, t, dim, at));
    map([](T v) { return v; }, slice, in);
    at += t.sizes[dim];
  }
}

// cat.out(tensors, dim, out): tensors already in out's dtype, with out's
// sizes except in dim (legacy empty 1-D tensors removed); dim wrapped.
void cat_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  sdk::Span<plexus_tensor> tensors = a.tensor_list(0);
  int64_t dim = a.integer(1);
  const plexus_tensor& out = a.tensor(2);
  if (!sdk::check_cat(tensors, dim, out)) return;  // out is empty
  if (out.ndim > sdk::kMaxIterDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} dims (at most {})", out.ndim, sdk::kMaxIterDims);
  sdk::visit_dtype(out.dtype,
                   [&](auto tag) { cat<typename decltype(tag)::type>(tensors, dim, out); });
}

}  // namespace

void register_shape(CpuBackend& b) {
  b.register_kernel<&cat_out>("cat.out", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
