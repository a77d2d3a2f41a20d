// Neural-network kernels for the floating dtypes (float16 and bfloat16
// compute in float): softmax, log_softmax, layer_norm, max_pool2d; and
// embedding for every dtype (rows copied bit for bit).
// softmax and layer_norm give each row (the elements along `dim`, or the
// trailing normalized dims) one block, reduced with block_reduce.
#include <cstring>
#include <string>

#include "block_reduce.h"
#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

// Rows of a tensor: `outer` dims index rows, `inner` dims the row's elements.
struct Rows {
  int32_t outer_ndim, inner_ndim;
  int64_t outer_sizes[kMaxDims], outer_in[kMaxDims], outer_out[kMaxDims];
  int64_t inner_sizes[kMaxDims], inner_in[kMaxDims], inner_out[kMaxDims];
  int64_t rows, n;
  const void* in;  // elements of the op's dtype
  void* out;
};

__device__ __forceinline__ int64_t offset_in(int64_t i, int32_t nd, const int64_t* sizes,
                                             const int64_t* strides) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

// in/out's dims split: those in [first, first + count) are a row's, the rest index rows.
Rows rows_of(const plexus_kernel_call& call, const plexus_tensor& in, const plexus_tensor& out,
             int32_t first, int32_t count) {
  if (in.ndim > kMaxDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + ": more than 8 dims");
  Rows r{};
  r.rows = r.n = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    bool inner = d >= first && d < first + count;
    int32_t& nd = inner ? r.inner_ndim : r.outer_ndim;
    (inner ? r.inner_sizes : r.outer_sizes)[nd] = in.sizes[d];
    (inner ? r.inner_in : r.outer_in)[nd] = in.strides[d];
    (inner ? r.inner_out : r.outer_out)[nd] = out.strides[d];
    ++nd;
    (inner ? r.n : r.rows) *= in.sizes[d];
  }
  r.in = static_cast<const char*>(in.storage) + in.offset * dtype_size(in.dtype);
  r.out = static_cast<char*>(out.storage) + out.offset * dtype_size(out.dtype);
  return r;
}

unsigned row_threads(int64_t n) {
  return n <= 32 ? 32 : (n <= 1024 ? 128 : 256);
}

struct Max {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return (b > a) || (b != b) ? b : a;
  }
};
struct Add {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return a + b;
  }
};

// Stable softmax of T rows computed in C: the row's max is subtracted before
// exponentiating.
template <typename T>
__global__ void softmax_kernel(Rows r, bool log) {
  using C = compute_t<T>;
  __shared__ C shared[2];
  for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
    const T* x =
        static_cast<const T*>(r.in) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_in);
    T* y = static_cast<T*>(r.out) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_out);
    C m = C(-INFINITY);
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x)
      m = Max{}(m, C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]));
    m = block_reduce(m, Max{});
    if (threadIdx.x == 0) shared[0] = m;
    __syncthreads();
    m = shared[0];
    C s = C(0);
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x)
      s += exp(C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]) - m);
    s = block_reduce(s, Add{});
    if (threadIdx.x == 0) shared[1] = log ? C(::log(s)) : C(1) / s;
    __syncthreads();
    C k = shared[1];
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x) {
      C t = C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]) - m;
      y[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_out)] = T(log ? t - k : exp(t) * k);
    }
    __syncthreads();  // shared is rewritten for the next row
  }
}

// softmax.int_out / log_softmax.int_out(self, dim, dtype, out)
template <bool Log>
void softmax_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  int64_t dim = a.integer(1);
  if (self.ndim == 0) dim = 0;
  if (self.dtype != out.dtype)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(call.op) + ": self is " +
                                                 sdk::dtype_name(self.dtype) + " but out is " +
                                                 sdk::dtype_name(out.dtype));
  Rows r = rows_of(call, self, out, int32_t(dim), self.ndim == 0 ? 0 : 1);
  if (r.rows == 0 || r.n == 0) return;
  unsigned blocks = unsigned(std::min<int64_t>(r.rows, 65535));
  visit_float(self.dtype, [&](auto tag) {
    auto* kernel = &softmax_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks, row_threads(r.n), 0, stream_of(call), r, Log);
  });
  check_launch(call, "softmax_kernel");
}

// A weight or bias over the normalized dims; data null: absent.
struct Affine {
  const void* data;
  int64_t strides[kMaxDims];
};

// y = (x - mean) * rstd * w + b in C with the biased variance, two passes
// for accuracy.
template <typename T>
__global__ void layer_norm_kernel(Rows r, Affine w, Affine b, double eps) {
  using C = compute_t<T>;
  __shared__ C shared[2];
  const T *wt = static_cast<const T*>(w.data), *bt = static_cast<const T*>(b.data);
  for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
    const T* x =
        static_cast<const T*>(r.in) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_in);
    T* y = static_cast<T*>(r.out) + offset_in(row, r.outer_ndim, r.outer_sizes, r.outer_out);
    C s = C(0);
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x)
      s += C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]);
    s = block_reduce(s, Add{});
    if (threadIdx.x == 0) shared[0] = s / C(r.n);
    __syncthreads();
    C mean = shared[0], v = C(0);
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x) {
      C d = C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]) - mean;
      v += d * d;
    }
    v = block_reduce(v, Add{});
    if (threadIdx.x == 0) shared[1] = C(1.0 / sqrt(double(v) / double(r.n) + eps));
    __syncthreads();
    C rstd = shared[1];
    for (int64_t i = threadIdx.x; i < r.n; i += blockDim.x) {
      C t = (C(x[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_in)]) - mean) * rstd;
      if (wt) t *= C(wt[offset_in(i, r.inner_ndim, r.inner_sizes, w.strides)]);
      if (bt) t += C(bt[offset_in(i, r.inner_ndim, r.inner_sizes, b.strides)]);
      y[offset_in(i, r.inner_ndim, r.inner_sizes, r.inner_out)] = T(t);
    }
    __syncthreads();
  }
}

Affine affine_of(const plexus_tensor* t) {
  Affine a{};
  if (!t) return a;
  a.data = static_cast<const char*>(t->storage) + t->offset * dtype_size(t->dtype);
  for (int32_t d = 0; d < t->ndim && d < kMaxDims; ++d) a.strides[d] = t->strides[d];
  return a;
}

// layer_norm.out(input, normalized_shape, weight, bias, eps, out)
void layer_norm_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &input = a.tensor(0), &out = a.tensor(5);
  int32_t k = int32_t(a.int_list(1).size());
  const plexus_tensor *weight = a.optional_tensor(2), *bias = a.optional_tensor(3);
  for (const plexus_tensor* t : {weight, bias})
    if (t && (t->ndim != k || t->dtype != input.dtype))
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
                "layer_norm.out: weight and bias must have normalized_shape's " +
                    std::to_string(k) + " dims and input's dtype");
  Rows r = rows_of(call, input, out, input.ndim - k, k);
  if (r.rows == 0 || r.n == 0) return;
  unsigned blocks = unsigned(std::min<int64_t>(r.rows, 65535));
  visit_float(input.dtype, [&](auto tag) {
    auto* kernel = &layer_norm_kernel<decltype(tag)>;
    PLEXUS_LAUNCH(kernel, blocks, row_threads(r.n), 0, stream_of(call), r, affine_of(weight),
                  affine_of(bias), a.floating(4));
  });
  check_launch(call, "layer_norm_kernel");
}

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

// "[i, j, ...]" for the row-major position of an element of t.
std::string index_str(const plexus_tensor& t, int64_t linear) {
  std::string s;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    s = std::to_string(linear % t.sizes[d]) + (s.empty() ? "" : ", ") + s;
    linear /= t.sizes[d];
  }
  return "[" + s + "]";
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
  if (weight.ndim != 2 || out.ndim != indices.ndim + 1)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: expected a 2-D weight and out of indices' dims plus one");
  if (indices.dtype != PLEXUS_DTYPE_I64 && indices.dtype != PLEXUS_DTYPE_I32)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "embedding: indices must be int32 or int64, got " +
                                                 std::string(sdk::dtype_name(indices.dtype)));
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
    int64_t pos = int64_t(first), value = read_index(call, indices, pos);
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: indices" + index_str(indices, pos) + " = " + std::to_string(value) +
                  " is out of range for weight with " + std::to_string(e.rows) +
                  " rows (expected 0 <= index < " + std::to_string(e.rows) + ")");
  }
}

}  // namespace

void register_nn(const Registrar& r) {
  r.kernel<&softmax_out<false>>("softmax.int_out", kFloatTypes);
  r.kernel<&softmax_out<true>>("log_softmax.int_out", kFloatTypes);
  r.kernel<&layer_norm_out>("layer_norm.out", kFloatTypes);
  r.kernel<&max_pool2d_out>("max_pool2d.out", kFloatTypes);
  r.kernel<&embedding_out>("embedding.out", kAllTypes);
}

}  // namespace plexus::gpu
