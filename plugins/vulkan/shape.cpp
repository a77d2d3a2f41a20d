// Shape-building kernels: cat, as one copy (shaders/copy.comp) per input into
// its slice of out.
#include <string>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

// cat.out(tensors, dim, out): tensors already in out's dtype, with out's
// sizes except in dim (legacy empty 1-D tensors removed); dim wrapped.
void cat_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  sdk::Span<plexus_tensor> tensors = a.tensor_list(0);
  int64_t dim = a.integer(1);
  const plexus_tensor& out = a.tensor(2);
  if (numel(out) == 0) return;  // also when only legacy empty tensors came
  if (dim < 0 || dim >= out.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "cat: dim " + std::to_string(dim) + " is not a dim of out (the host wraps it)");
  int64_t total = 0;  // everything is checked before anything is written
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
  int64_t at = 0;  // where the next piece starts along dim
  for (const plexus_tensor& t : tensors) {
    plexus_tensor slice = out;
    slice.sizes = t.sizes;
    slice.offset = out.offset + at * out.strides[dim];
    launch_elementwise(b.device(call.device_index), call.stream, "copy", {t.dtype, t.dtype},
                       {&slice, &t});
    at += t.sizes[dim];
  }
}

}  // namespace

void register_shape(VulkanBackend& b) {
  b.register_kernel<&cat_out>("cat.out", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
