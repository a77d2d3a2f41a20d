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
  if (!sdk::check_cat(tensors, dim, out)) return;  // out is empty; everything checked before writing
  int64_t at = 0;  // where the next piece starts along dim
  for (const plexus_tensor& t : tensors) {
    plexus_tensor slice = sdk::cat_slice(out, t, dim, at);
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
