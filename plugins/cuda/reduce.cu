// Reductions (float16 and bfloat16 accumulate in float): sum (numeric dtypes; integers in 64
// bits, wrapping), mean (floating), amax, amin (every dtype; bool as its byte) over a set of dims
// and argmax, argmin (numeric) over one dim or all elements (row-major index). One block per
// output element (grid-stride over outputs); its threads stride over the reduced elements and
// combine through block_reduce. When there are too few outputs to fill the device and many
// elements each, the reduced range is split: a first pass leaves one partial per block in a
// workspace, a second combines each output's partials (one block for a 16M-element sum took
// 35 ms on an H200).
#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "block_reduce.h"
#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "memory.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::gpu {
namespace {

// self's dims split into kept ones (strides in self and out) and reduced ones
// (strides in self), each collapsed (plexus/sdk/layout.hpp).
struct ReduceLayout {
  sdk::CollapsedDims<2, kMaxDims> kept;
  sdk::CollapsedDims<1, kMaxDims> red;
  const void* in;  // elements of the op's dtype
  void* out;
};

// Integers add as uint64 (wrapping, as the cpu does); the store wraps to C.
template <typename C>
struct SumOp {
  using A = std::conditional_t<std::is_integral_v<C>, uint64_t, C>;
  __device__ A identity() const { return A(0); }
  __device__ A element(C x, int64_t) const { return A(x); }
  __device__ A combine(A a, A b) const { return a + b; }
  __device__ C finish(A a, int64_t) const { return C(a); }
};
template <typename C>
struct MeanOp : SumOp<C> {
  __device__ C finish(C a, int64_t count) const { return a / C(count); }
};
// NaN wins over every number.
template <typename C, bool IsMax>
struct ExtremeOp {
  using A = C;
  __device__ A identity() const {
    if constexpr (std::is_integral_v<C>)
      return IsMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
    else
      return IsMax ? C(-INFINITY) : C(INFINITY);
  }
  __device__ A element(C x, int64_t) const { return x; }
  __device__ A combine(A a, A b) const {
    if constexpr (!std::is_integral_v<C>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return (IsMax ? b > a : b < a) ? b : a;
  }
  __device__ C finish(A a, int64_t) const { return a; }
};
template <typename C>
using MaxOp = ExtremeOp<C, true>;
template <typename C>
using MinOp = ExtremeOp<C, false>;

// A value and its index in the reduced space; index -1 is "no element".
template <typename C>
struct Indexed {
  C v;
  int64_t i;
};
template <typename C>
__device__ __forceinline__ Indexed<C> shuffle_down(Indexed<C> x, int delta) {
  return {gpu::shuffle_down(x.v, delta),  // block_reduce.h's, which this one hides
          __shfl_down_sync(PLEXUS_FULL_MASK, (long long)x.i, unsigned(delta))};
}

// The first extreme; the first NaN wins over every number.
template <typename C, bool IsMax>
struct ArgExtremeOp {
  using A = Indexed<C>;
  __device__ A identity() const { return {C(0), -1}; }
  __device__ A element(C x, int64_t i) const { return {x, i}; }
  __device__ A combine(A a, A b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) return an && bn ? (b.i < a.i ? b : a) : (an ? a : b);
    if (a.v == b.v) return b.i < a.i ? b : a;
    return (IsMax ? b.v > a.v : b.v < a.v) ? b : a;
  }
  __device__ int64_t finish(A a, int64_t) const { return a.i; }
};

// Folds this thread's elements begin + threadIdx.x, + blockDim.x, ... below
// end into acc, in that order; four loads are issued before their combines so
// that a thread keeps several reads in flight.
template <typename Op, typename T>
__device__ __forceinline__ typename Op::A fold(typename Op::A acc, const Op& op, const T* in,
                                               const ReduceLayout& l, int64_t begin,
                                               int64_t end) {
  using C = compute_t<T>;
  auto at = [&](int64_t r) { return C(in[offset_in(r, l.red.ndim, l.red.sizes, l.red.strides[0])]); };
  const int64_t s = blockDim.x;
  int64_t r = begin + threadIdx.x;
  for (; r + 3 * s < end; r += 4 * s) {
    C x0 = at(r), x1 = at(r + s), x2 = at(r + 2 * s), x3 = at(r + 3 * s);
    acc = op.combine(acc, op.element(x0, r));
    acc = op.combine(acc, op.element(x1, r + s));
    acc = op.combine(acc, op.element(x2, r + 2 * s));
    acc = op.combine(acc, op.element(x3, r + 3 * s));
  }
  for (; r < end; r += s) acc = op.combine(acc, op.element(at(r), r));
  return acc;
}

// Op folds compute_t<T> values; the result is stored as Out.
template <typename Op, typename T, typename Out>
__global__ void reduce_kernel(ReduceLayout l, Op op) {
  auto combine = [op](typename Op::A a, typename Op::A b) { return op.combine(a, b); };
  for (int64_t o = blockIdx.x; o < l.kept.numel; o += gridDim.x) {
    const T* in =
        static_cast<const T*>(l.in) + offset_in(o, l.kept.ndim, l.kept.sizes, l.kept.strides[0]);
    typename Op::A acc = fold(op.identity(), op, in, l, 0, l.red.numel);
    acc = block_reduce(acc, combine);
    if (threadIdx.x == 0)
      static_cast<Out*>(l.out)[offset_in(o, l.kept.ndim, l.kept.sizes, l.kept.strides[1])] =
          Out(op.finish(acc, l.red.numel));
  }
}

// The layout of self reduced over `dims` into out.
ReduceLayout reduce_layout(const plexus_kernel_call& call, const plexus_tensor& self,
                           const plexus_tensor& out, const std::vector<int64_t>& dims) {
  ReduceLayout l{};
  bool keepdim = out.ndim == self.ndim, fits = true;
  for (int32_t d = 0, od = 0; d < self.ndim; ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
      fits = fits && l.red.push(self.sizes[d], {self.strides[d]});
      od += keepdim;
    } else {
      fits = fits && l.kept.push(self.sizes[d], {self.strides[d], out.strides[od++]});
    }
  }
  if (!fits) sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + ": more than 8 dims");
  l.in = static_cast<const char*>(self.storage) + self.offset * dtype_size(self.dtype);
  l.out = static_cast<char*>(out.storage) + out.offset * dtype_size(out.dtype);
  return l;
}

// First pass of a split reduction: block b reduces part b % splits of output
// b / splits into partial[b].
template <typename Op, typename T>
__global__ void reduce_split_kernel(ReduceLayout l, Op op, int64_t splits,
                                    typename Op::A* partial) {
  auto combine = [op](typename Op::A a, typename Op::A b) { return op.combine(a, b); };
  const int64_t chunk = (l.red.numel + splits - 1) / splits;
  for (int64_t b = blockIdx.x; b < l.kept.numel * splits; b += gridDim.x) {
    const int64_t o = b / splits, begin = (b % splits) * chunk;
    const int64_t end = begin + chunk < l.red.numel ? begin + chunk : l.red.numel;
    const T* in =
        static_cast<const T*>(l.in) + offset_in(o, l.kept.ndim, l.kept.sizes, l.kept.strides[0]);
    typename Op::A acc = fold(op.identity(), op, in, l, begin, end);
    acc = block_reduce(acc, combine);
    if (threadIdx.x == 0) partial[b] = acc;
  }
}

// Second pass: each output's `splits` partials into its element of out.
template <typename Op, typename Out>
__global__ void reduce_partials_kernel(ReduceLayout l, Op op, int64_t splits,
                                       const typename Op::A* partial) {
  auto combine = [op](typename Op::A a, typename Op::A b) { return op.combine(a, b); };
  for (int64_t o = blockIdx.x; o < l.kept.numel; o += gridDim.x) {
    typename Op::A acc = op.identity();
    for (int64_t s = threadIdx.x; s < splits; s += blockDim.x)
      acc = op.combine(acc, partial[o * splits + s]);
    acc = block_reduce(acc, combine);
    if (threadIdx.x == 0)
      static_cast<Out*>(l.out)[offset_in(o, l.kept.ndim, l.kept.sizes, l.kept.strides[1])] =
          Out(op.finish(acc, l.red.numel));
  }
}

// Blocks enough to fill every multiprocessor a few times over.
int64_t target_blocks(int32_t device) {
  return 8 * int64_t{backend().devices().multiprocessors(device)};
}

template <typename T, typename Out, typename Op>
void run_reduce(const plexus_kernel_call& call, const ReduceLayout& l, Op op) {
  if (l.kept.numel == 0) return;
  unsigned threads = l.red.numel <= 32 ? 32 : (l.red.numel <= 1024 ? 128 : 256);
  // Split when the outputs leave most of the device idle and each part still
  // has at least 16 elements per thread.
  constexpr int64_t kMinPart = 16 * 256;
  int64_t want = target_blocks(call.device_index);
  int64_t splits = std::min(l.red.numel / kMinPart, want / l.kept.numel);
  if (l.kept.numel < want / 2 && splits >= 2) {
    Workspace partial(call, size_t(l.kept.numel * splits) * sizeof(typename Op::A));
    auto* A = partial.as<typename Op::A>();
    unsigned blocks = unsigned(std::min<int64_t>(l.kept.numel * splits, 65535));
    auto* first = &reduce_split_kernel<Op, T>;
    PLEXUS_LAUNCH(first, blocks, 256, 0, stream_of(call), l, op, splits, A);
    check_launch(call, "reduce_split_kernel");
    unsigned second_threads = splits <= 32 ? 32 : (splits <= 128 ? 128 : 256);
    auto* second = &reduce_partials_kernel<Op, Out>;
    PLEXUS_LAUNCH(second, unsigned(std::min<int64_t>(l.kept.numel, 65535)), second_threads, 0,
                  stream_of(call), l, op, splits, static_cast<const typename Op::A*>(A));
    check_launch(call, "reduce_partials_kernel");
    return;
  }
  unsigned blocks = unsigned(std::min<int64_t>(l.kept.numel, 65535));
  auto* kernel = &reduce_kernel<Op, T, Out>;
  PLEXUS_LAUNCH(kernel, blocks, threads, 0, stream_of(call), l, op);
  check_launch(call, "reduce_kernel");
}

// sum.IntList_out / mean.out(self, dim, keepdim, dtype, out); amax/amin.out(self, dim, keepdim,
// out)
// Over every dtype (bool as its byte) when AllTypes, else the floating ones.
template <template <typename> class Op, int OutArg, bool AllTypes>
void reduce_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(OutArg);
  sdk::check_same_dtype(self, out);
  ReduceLayout l = reduce_layout(call, self, out, sdk::reduced_dims(a, 1, self));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    run_reduce<T, T>(call, l, Op<compute_t<T>>{});
  };
  if constexpr (AllTypes)
    visit_all(self.dtype, run);
  else
    visit_float(self.dtype, run);
}

// argmax.out / argmin.out(self, dim, keepdim, out): int64 indices.
template <bool IsMax>
void arg_extreme_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  std::optional<int64_t> dim = a.optional_integer(1);
  std::vector<int64_t> dims;
  if (dim)
    dims.push_back(*dim);
  else
    for (int32_t d = 0; d < self.ndim; ++d) dims.push_back(d);
  ReduceLayout l = reduce_layout(call, self, out, dims);
  if (l.red.numel == 0) return;  // the host rejects an empty reduced dim
  visit_numeric(self.dtype, [&](auto tag) {
    using T = decltype(tag);
    run_reduce<T, int64_t>(call, l, ArgExtremeOp<compute_t<T>, IsMax>{});
  });
}

}  // namespace

void register_reduce(GpuBackend& b) {
  b.register_kernel<&reduce_out<SumOp, 4, true>>("sum.IntList_out", sdk::kNumericDTypes);
  b.register_kernel<&reduce_out<MeanOp, 4, false>>("mean.out", sdk::kFloatingDTypes);
  b.register_kernel<&reduce_out<MaxOp, 3, true>>("amax.out", sdk::kAllDTypes);
  b.register_kernel<&reduce_out<MinOp, 3, true>>("amin.out", sdk::kAllDTypes);
  b.register_kernel<&arg_extreme_out<true>>("argmax.out", sdk::kNumericDTypes);
  b.register_kernel<&arg_extreme_out<false>>("argmin.out", sdk::kNumericDTypes);
}

}  // namespace plexus::gpu
