// cat.out for every dtype: each piece is copied bit for bit into its slice
// of out along dim, with the elementwise map over element-sized words.
#include <cstdint>
#include <string>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

template <typename W>
struct Same {
  __device__ W operator()(W v) const { return v; }
};

// Copies piece into slice (out's strides, piece's sizes) as words of its size.
void copy_piece(const plexus_kernel_call& call, const plexus_tensor& slice,
                const plexus_tensor& piece) {
  const plexus_tensor* const t[2] = {&slice, &piece};
  switch (dtype_size(piece.dtype)) {
    case 1:
      return launch_map<uint8_t, uint8_t, 2>(call, t, Same<uint8_t>{});
    case 2:
      return launch_map<uint16_t, uint16_t, 2>(call, t, Same<uint16_t>{});
    case 4:
      return launch_map<uint32_t, uint32_t, 2>(call, t, Same<uint32_t>{});
    default:
      return launch_map<uint64_t, uint64_t, 2>(call, t, Same<uint64_t>{});
  }
}

// cat.out(tensors, dim, out): tensors already in out's dtype, with out's
// sizes except in dim (legacy empty 1-D tensors removed); dim wrapped.
void cat_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  sdk::Span<plexus_tensor> tensors = a.tensor_list(0);
  int64_t dim = a.integer(1);
  const plexus_tensor& out = a.tensor(2);
  // false: out is empty; everything is checked before copying
  if (!sdk::check_cat(tensors, dim, out)) return;
  int64_t at = 0;  // where the next piece starts along dim
  for (const plexus_tensor& t : tensors) {
    plexus_tensor slice = sdk::cat_slice(out, t, dim, at);
    copy_piece(call, slice, t);
    at += t.sizes[dim];
  }
}

}  // namespace

void register_shape(GpuBackend& b) {
  b.register_kernel<&cat_out>("cat.out", sdk::kAllDTypes);
}

}  // namespace plexus::gpu
