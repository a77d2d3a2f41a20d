// embedding for every dtype: rows of weight gathered by index, copied bit for
// bit; an index out of range fails the call.
#include <cstring>
#include <string>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::gpu {
namespace {

// Rows of weight gathered by index: index position i of indices, column j.
struct Embedding {
  const char* weight;
  int64_t ws0, ws1, rows, dim, elem;
  Layout<2> index;  // out's leading dims (strides[0]) and indices (strides[1], data[1])
  int64_t os_last;
  bool index64;
  unsigned long long* bad;  // the first out-of-range position, or ~0
};

__global__ void embedding_kernel(Embedding e) {
  int64_t width = e.dim > 0 ? e.dim : 1;  // indices are checked even with no columns
  int64_t step = int64_t(blockDim.x) * gridDim.x, total = e.index.numel * width;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    int64_t pos = t / width, j = t % width, off[2];
    offsets_of(e.index, pos, off);
    int64_t row = e.index64 ? static_cast<const int64_t*>(e.index.data[1])[off[1]]
                            : static_cast<const int32_t*>(e.index.data[1])[off[1]];
    if (row < 0 || row >= e.rows) {
      atomicMin(e.bad, (unsigned long long)pos);
      continue;
    }
    if (e.dim == 0) continue;
    const char* src = e.weight + (row * e.ws0 + j * e.ws1) * e.elem;
    char* dst = static_cast<char*>(e.index.data[0]) + (off[0] + j * e.os_last) * e.elem;
    memcpy(dst, src, size_t(e.elem));
  }
}

// Reads one element of a device tensor (an index) back to the host.
int64_t read_index(const plexus_kernel_call& call, const plexus_tensor& t, int64_t linear) {
  int64_t off = t.offset;
  for (int32_t d = t.ndim - 1; d >= 0; --d)
    off += linear % t.sizes[d] * t.strides[d], linear /= t.sizes[d];
  int64_t v = 0;
  size_t size = size_t(dtype_size(t.dtype));
  gpuStream_t s = stream_of(call);
  check(gpuMemcpyAsync(&v, static_cast<char*>(t.storage) + off * int64_t(size), size,
                       gpuMemcpyDeviceToHost, s),
        call, "gpuMemcpyAsync");
  check(gpuStreamSynchronize(s), call, "gpuStreamSynchronize");
  return size == 4 ? int64_t(int32_t(v)) : v;
}

// embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, out).
// An index out of range fails the call: the kernel records its position and
// the call waits for the stream to report it (one synchronization per call).
void embedding_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &weight = a.tensor(0), &indices = a.tensor(1), &out = a.tensor(5);
  sdk::check_embedding(weight, indices, out);
  plexus_tensor lead = out;  // out without its last dim, shaped like indices
  lead.ndim = indices.ndim;
  Embedding e{static_cast<const char*>(weight.storage) + weight.offset * dtype_size(weight.dtype),
              weight.strides[0],
              weight.strides[1],
              weight.sizes[0],
              weight.sizes[1],
              dtype_size(weight.dtype),
              make_layout<2>(call, {&lead, &indices}),
              out.strides[out.ndim - 1],
              indices.dtype == PLEXUS_DTYPE_I64,
              nullptr};
  if (e.index.numel == 0) return;
  gpuStream_t s = stream_of(call);
  Workspace bad(call, sizeof(unsigned long long));
  e.bad = bad.as<unsigned long long>();
  check(gpuMemsetAsync(e.bad, 0xff, sizeof(unsigned long long), s), call, "gpuMemsetAsync");
  int64_t total = e.index.numel * (e.dim > 0 ? e.dim : 1);
  PLEXUS_LAUNCH(embedding_kernel, blocks_for(total), kBlockThreads, 0, s, e);
  check_launch(call, "embedding_kernel");
  unsigned long long first = 0;
  check(gpuMemcpyAsync(&first, e.bad, sizeof first, gpuMemcpyDeviceToHost, s), call,
        "gpuMemcpyAsync");
  check(gpuStreamSynchronize(s), call, "gpuStreamSynchronize");
  if (first != ~0ull) {
    int64_t pos = int64_t(first);
    sdk::fail_index_out_of_range("indices", indices, pos, read_index(call, indices, pos), e.rows,
                                 "weight with " + std::to_string(e.rows) + " rows");
  }
}

}  // namespace

void register_embedding(GpuBackend& b) {
  b.register_kernel<&embedding_out>("embedding.out", sdk::kAllDTypes);
}

}  // namespace plexus::gpu
