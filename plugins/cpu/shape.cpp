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
  sdk::TensorView<T> o(out);
  int64_t at = 0;  // where the next piece starts along dim
  for (const plexus_tensor& t : tensors) {
    sdk::TensorView<const T> in(t);
    sdk::TensorView<T> slice(o.data() + at * out.strides[dim], out.ndim, t.sizes, out.strides);
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
  int64_t count = 1;
  for (int32_t d = 0; d < out.ndim; ++d) count *= out.sizes[d];
  if (count == 0) return;  // also when only legacy empty tensors came, dim unwrapped
  if (out.ndim > sdk::kMaxIterDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "cat: " + std::to_string(out.ndim) + " dims (at most " +
                                            std::to_string(sdk::kMaxIterDims) + ")");
  if (dim < 0 || dim >= out.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "cat: dim " + std::to_string(dim) + " is not a dim of out (the host wraps it)");
  int64_t total = 0;
  for (int64_t i = 0; i < tensors.size(); ++i) {
    const plexus_tensor& t = tensors[i];
    bool fits = t.dtype == out.dtype && t.ndim == out.ndim;
    for (int32_t d = 0; fits && d < t.ndim; ++d) fits = d == dim || t.sizes[d] == out.sizes[d];
    if (!fits)
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
                "cat: tensors[" + std::to_string(i) + "] does not fit out along dim " +
                    std::to_string(dim) + " (the host checks shapes and converts dtypes first)");
    total += t.sizes[dim];
  }
  if (total != out.sizes[dim])
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "cat: the tensors' sizes along dim " + std::to_string(dim) + " add up to " +
                  std::to_string(total) + ", but out has " + std::to_string(out.sizes[dim]));
  sdk::visit_dtype(out.dtype,
                   [&](auto tag) { cat<typename decltype(tag)::type>(tensors, dim, out); });
}

}  // namespace

void register_shape(const Registrar& r) {
  sdk::register_kernel<&cat_out>(r.host, r.slot, "cat.out", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
