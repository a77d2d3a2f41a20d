// max_pool2d for the floating dtypes (float16 and bfloat16 compare in
// float): one thread per output element.
#include <cmath>

#include "block_reduce.h"
#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

using Pool = sdk::Pool2dWindow;  // kernel, stride, padding, dilation as (h, w)

// One output element per thread: the max over its window's taps inside the
// input (padding never wins); a NaN wins.
template <typename T>
__global__ void max_pool2d_kernel(Layout<2> l, Pool p, int64_t h, int64_t w) {
  using C = compute_t<T>;
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  const T* in = static_cast<const T*>(l.data[1]);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t ow = i % l.sizes[3], oh = i / l.sizes[3] % l.sizes[2];
    int64_t c = i / (l.sizes[3] * l.sizes[2]) % l.sizes[1],
            n = i / (l.sizes[3] * l.sizes[2] * l.sizes[1]);
    const T* plane = in + n * l.strides[1][0] + c * l.strides[1][1];
    C m = C(-INFINITY);
    for (int64_t ky = 0; ky < p.kernel[0]; ++ky) {
      int64_t y = oh * p.stride[0] - p.padding[0] + ky * p.dilation[0];
      if (y < 0 || y >= h) continue;
      for (int64_t kx = 0; kx < p.kernel[1]; ++kx) {
        int64_t x = ow * p.stride[1] - p.padding[1] + kx * p.dilation[1];
        if (x < 0 || x >= w) continue;
        m = Max{}(m, C(plane[y * l.strides[1][2] + x * l.strides[1][3]]));
      }
    }
    static_cast<T*>(l.data[0])[n * l.strides[0][0] + c * l.strides[0][1] + oh * l.strides[0][2] +
                               ow * l.strides[0][3]] = T(m);
  }
}

// max_pool2d.out(self, kernel_size, stride, padding, dilation, ceil_mode, out)
void max_pool2d_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(6);
  const Pool p = sdk::read_max_pool2d_window(a);
  Layout<2> l{};  // out's 4 dims as they are (no merging): the kernel reads them by position
  l.ndim = 4;
  l.numel = out.sizes[0] * out.sizes[1] * out.sizes[2] * out.sizes[3];
  for (int d = 0; d < 4; ++d)
    l.sizes[d] = out.sizes[d], l.strides[0][d] = out.strides[d], l.strides[1][d] = self.strides[d];
  l.data[0] = static_cast<char*>(out.storage) + out.offset * dtype_size(out.dtype);
  l.data[1] = static_cast<char*>(self.storage) + self.offset * dtype_size(self.dtype);
  if (l.numel == 0) return;
  visit_float(out.dtype, [&](auto tag) {
    auto* kernel = &max_pool2d_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l, p,
                  self.sizes[2], self.sizes[3]);
  });
  check_launch(call, "max_pool2d_kernel");
}

}  // namespace

void register_pool(GpuBackend& b) {
  b.register_kernel<&max_pool2d_out>("max_pool2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
