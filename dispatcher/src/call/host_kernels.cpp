#include "call/host_kernels.h"

#include <array>

#include "plexus/dispatcher.h"
#include "plexus/dtype_dispatch.h"
#include "plexus/sdk/elementwise.hpp"
#include "plexus/sdk/layout.hpp"

namespace plexus {
namespace {

// Calls f(dst_ptr, src_ptr, n, dst_step, src_step) (steps in bytes) for each
// innermost row of two same-shape strided host tensors (src may be null for
// fills), their dims collapsed as plugins collapse them (plexus/sdk/layout.hpp).
template <typename F>
void for_each_row(const Tensor& dst, const Tensor* src, F&& f) {
  const Tensor& s = src ? *src : dst;  // a fill walks dst's layout alone
  sdk::CollapsedDims<2> dims;
  PLEXUS_CHECK(sdk::collapse_dims(int32_t(dst.dim()), dst.sizes().data(),
                                  {dst.strides().data(), s.strides().data()}, dims),
               ErrorCode::Unsupported, "host copy: {} dims do not collapse to at most {}",
               dst.dim(), sdk::kMaxIterDims);
  char* d = static_cast<char*>(dst.data_ptr());
  const char* sp = src ? static_cast<const char*>(src->data_ptr()) : nullptr;
  const int64_t di = dst.itemsize(), si = src ? src->itemsize() : 0;
  sdk::for_each_row<2>(
      dims.ndim, dims.sizes, {dims.strides[0], dims.strides[1]},
      [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
        f(d + off[0] * di, sp ? sp + off[1] * si : nullptr, n, step[0] * di, step[1] * si);
      });
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False)
void copy_kernel(void*, KernelCall& call) {
  const Tensor& dst = call.args[0].to_tensor();
  const Tensor& src = call.args[1].to_tensor();
  visit_dtype(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    visit_dtype(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      for_each_row(dst, &src, [](char* d, const char* s, int64_t n, int64_t ds, int64_t ss) {
        for (int64_t i = 0; i < n; ++i) {
          // A bool byte is read as a byte: any nonzero value is true, never UB.
          if constexpr (std::is_same_v<S, bool>)
            *reinterpret_cast<D*>(d + i * ds) =
                convert_value<D>(*reinterpret_cast<const uint8_t*>(s + i * ss) != 0);
          else
            *reinterpret_cast<D*>(d + i * ds) =
                convert_value<D>(*reinterpret_cast<const S*>(s + i * ss));
        }
      });
    });
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value)
void fill_kernel(void*, KernelCall& call) {
  const Tensor& dst = call.args[0].to_tensor();
  Scalar v = call.args[1].to_scalar();
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T value = v.is_floating() ? convert_value<T>(v.to_double())
              : v.is_bool()   ? convert_value<T>(v.to_bool())
                              : convert_value<T>(v.to_int());
    for_each_row(dst, nullptr, [&](char* d, const char*, int64_t n, int64_t ds, int64_t) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d + i * ds) = value;
    });
  });
}

}  // namespace

void register_host_kernels(Dispatcher& d) {
  d.register_kernel("copy_", kCPU, copy_kernel, nullptr, DTypeSet::all(), kHostKernelSource);
  d.register_kernel("fill_.Scalar", kCPU, fill_kernel, nullptr, DTypeSet::all(), kHostKernelSource);
}

void restore_host_kernels(Dispatcher& d) {
  if (!d.op("copy_").kernel(kCPU))
    d.register_kernel("copy_", kCPU, copy_kernel, nullptr, DTypeSet::all(), kHostKernelSource);
  if (!d.op("fill_.Scalar").kernel(kCPU))
    d.register_kernel("fill_.Scalar", kCPU, fill_kernel, nullptr, DTypeSet::all(),
                      kHostKernelSource);
}

}  // namespace plexus
