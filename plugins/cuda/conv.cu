// conv2d for the floating dtypes (float16 and bfloat16 accumulate in float), direct: one output
// element per thread, summing its group's input channels under the (dilated, strided, padded)
// window. The HIP path, and the CUDA path when cuDNN is disabled or missing.
#include <string>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

struct Conv {
  const void *in, *weight, *bias;  // elements of the op's dtype; bias null: none
  void* out;
  int64_t is[4], ws[4], os[4], bias_stride;
  int64_t n, c, h, w, oc, kh, kw, oh, ow;
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

template <typename T>
__global__ void conv2d_kernel(Conv v) {
  using C = compute_t<T>;
  const T *in = static_cast<const T*>(v.in), *weight = static_cast<const T*>(v.weight),
          *bias = static_cast<const T*>(v.bias);
  int64_t total = v.n * v.oc * v.oh * v.ow, step = int64_t(blockDim.x) * gridDim.x;
  int64_t cg = v.c / v.groups, og = v.oc / v.groups;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    int64_t x = i % v.ow, y = i / v.ow % v.oh, o = i / (v.ow * v.oh) % v.oc,
            n = i / (v.ow * v.oh * v.oc);
    int64_t g = o / og;
    C acc = bias ? C(bias[o * v.bias_stride]) : C(0);
    for (int64_t ci = 0; ci < cg; ++ci) {
      const T* plane = in + n * v.is[0] + (g * cg + ci) * v.is[1];
      const T* wk = weight + o * v.ws[0] + ci * v.ws[1];
      for (int64_t ky = 0; ky < v.kh; ++ky) {
        int64_t iy = y * v.sh - v.ph + ky * v.dh;
        if (iy < 0 || iy >= v.h) continue;
        for (int64_t kx = 0; kx < v.kw; ++kx) {
          int64_t ix = x * v.sw - v.pw + kx * v.dw;
          if (ix < 0 || ix >= v.w) continue;
          acc += C(plane[iy * v.is[2] + ix * v.is[3]]) * C(wk[ky * v.ws[2] + kx * v.ws[3]]);
        }
      }
    }
    static_cast<T*>(v.out)[n * v.os[0] + o * v.os[1] + y * v.os[2] + x * v.os[3]] = T(acc);
  }
}

// conv2d.out(input, weight, bias, stride, padding, dilation, groups, *, out)
void conv2d_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &input = a.tensor(0), &weight = a.tensor(1), &out = a.tensor(7);
  const plexus_tensor* bias = a.optional_tensor(2);
  if (input.ndim != 4 || weight.ndim != 4 || out.ndim != 4)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "conv2d.out: expected 4-D input, weight and out "
              "(the host adds the batch dim)");
  auto stride = a.int_list(3), padding = a.int_list(4), dilation = a.int_list(5);
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "conv2d.out: stride, padding and dilation must have two values");
  Conv v{};
  auto at = [](const plexus_tensor& t) {
    return static_cast<char*>(t.storage) + t.offset * dtype_size(t.dtype);
  };
  v.in = at(input);
  v.weight = at(weight);
  v.bias = bias ? at(*bias) : nullptr;
  v.bias_stride = bias && bias->ndim == 1 ? bias->strides[0] : 0;
  v.out = at(out);
  for (int d = 0; d < 4; ++d)
    v.is[d] = input.strides[d], v.ws[d] = weight.strides[d], v.os[d] = out.strides[d];
  v.n = input.sizes[0], v.c = input.sizes[1], v.h = input.sizes[2], v.w = input.sizes[3];
  v.oc = weight.sizes[0], v.kh = weight.sizes[2], v.kw = weight.sizes[3];
  v.oh = out.sizes[2], v.ow = out.sizes[3];
  v.sh = stride[0], v.sw = stride[1], v.ph = padding[0], v.pw = padding[1];
  v.dh = dilation[0], v.dw = dilation[1], v.groups = a.integer(6);
  if (v.groups < 1 || v.c % v.groups != 0 || v.oc % v.groups != 0)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "conv2d.out: groups " + std::to_string(v.groups) + " must divide " +
                  std::to_string(v.c) + " input and " + std::to_string(v.oc) + " output channels");
  int64_t total = v.n * v.oc * v.oh * v.ow;
  if (total == 0) return;
  visit_float(out.dtype, [&](auto tag) {
    auto* kernel = &conv2d_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks_for(total), kBlockThreads, 0, stream_of(call), v);
  });
  check_launch(call, "conv2d_kernel");
}

}  // namespace

void register_conv(GpuBackend& b) {
  b.register_kernel<&conv2d_out>("conv2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
