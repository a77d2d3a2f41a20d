// cat.out for every dtype: each piece is copied bit for bit into its slice
// of out along dim, with the elementwise map over element-sized words.
#include <cstdint>
#include <string>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kAllTypes = (1u << PLEXUS_NUM_DTYPES) - 1;

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
  int64_t count = 1;
  for (int32_t d = 0; d < out.ndim; ++d) count *= out.sizes[d];
  if (count == 0) return;  // also when only legacy empty tensors came, dim unwrapped
  if (dim < 0 || dim >= out.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "cat: dim " + std::to_string(dim) + " is not a dim of out (the host wraps it)");
  int64_t total = 0;  // every piece is checked before any is copied
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
    slice.offset = out.offset + at * out.strides[dim];
    slice.sizes = t.sizes;
    copy_piece(call, slice, t);
    at += t.sizes[dim];
  }
}

}  // namespace

void register_shape(const Registrar& r) {
  r.kernel<&cat_out>("cat.out", kAllTypes);
}

}  // namespace plexus::gpu
