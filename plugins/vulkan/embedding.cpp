// embedding: rows of a weight picked by int32 or int64 indices, checked on
// the host first (shaders/embedding.comp).
#include <string>
#include <vector>

#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::vulkan {
namespace {

// Throws INVALID_ARGUMENT naming the first index outside [0, num).
template <typename I>
void check_indices(const plexus_tensor& view, const void* host_base, int64_t num) {
  int64_t value = 0;
  int64_t bad = sdk::first_out_of_range<I>(sdk::TensorView<const I>(view, host_base), num, &value);
  if (bad >= 0)
    sdk::fail_index_out_of_range("indices", view, bad, value, num,
                                 "weight with " + std::to_string(num) + " rows");
}

// embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out).
// The indices are read back and checked first (a shader cannot report a bad
// one), which waits for the stream's earlier work.
void embedding_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &weight = a.tensor(0), &indices = a.tensor(1), &out = a.tensor(5);
  sdk::check_embedding(weight, indices, out);
  if (numel(out) == 0) return;
  Device& dev = b.device(call.device_index);
  std::vector<uint8_t> host;
  const plexus_tensor host_view = read_back(dev, call.stream, indices, host);
  if (indices.dtype == PLEXUS_DTYPE_I64)
    check_indices<int64_t>(host_view, host.data(), weight.sizes[0]);
  else
    check_indices<int32_t>(host_view, host.data(), weight.sizes[0]);
  // Views over out's shape: indices (stride 0 along the embedding dim) and
  // the weight's columns (stride 0 along the index dims).
  std::vector<int64_t> is(indices.strides, indices.strides + indices.ndim), ws(size_t(out.ndim), 0);
  is.push_back(0);
  ws.back() = weight.strides[1];
  plexus_tensor iv = indices, wv = weight;
  iv.ndim = wv.ndim = out.ndim;
  iv.sizes = wv.sizes = out.sizes;
  iv.strides = is.data();
  wv.strides = ws.data();
  ElementwisePush push;
  push.s0 = uint64_t(weight.strides[0]);
  launch_elementwise(dev, call.stream, "embedding",
                     {int32_t(sdk::dtype_size(weight.dtype)), indices.dtype == PLEXUS_DTYPE_I64},
                     {&out, &iv, &wv}, push);
}

}  // namespace

void register_embedding(VulkanBackend& b) {
  b.register_kernel<&embedding_out>("embedding.out", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
