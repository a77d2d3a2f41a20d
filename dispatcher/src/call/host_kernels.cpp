#include "call/host_kernels.h"

#include "plexus/dispatcher.h"
#include "plexus/dtype_dispatch.h"

namespace plexus {
namespace {

// Calls f(dst_ptr, src_ptr, n, dst_step, src_step) for each innermost row of
// two same-shape strided host tensors (src may be null for fills).
template <typename F>
void for_each_row(const Tensor& dst, const Tensor* src, F&& f) {
  int64_t nd = dst.dim();
  if (dst.numel() == 0) return;
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = src ? static_cast<const char*>(src->data_ptr()) : nullptr;
  if (nd == 0) {
    f(d, s, 1, 0, 0);
    return;
  }
  int64_t di = dst.itemsize(), si = src ? src->itemsize() : 0;
  int64_t inner = dst.sizes()[nd - 1];
  int64_t dstep = dst.strides()[nd - 1] * di, sstep = src ? src->strides()[nd - 1] * si : 0;
  Shape idx(nd - 1, 0);
  int64_t rows = dst.numel() / inner;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t doff = 0, soff = 0;
    for (int64_t k = 0; k < nd - 1; ++k) {
      doff += idx[k] * dst.strides()[k] * di;
      if (src) soff += idx[k] * src->strides()[k] * si;
    }
    f(d + doff, s ? s + soff : nullptr, inner, dstep, sstep);
    for (int64_t k = nd - 2; k >= 0; --k) {
      if (++idx[k] < dst.sizes()[k]) break;
      idx[k] = 0;
    }
  }
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
  d.register_kernel("fill_.Scalar", kCPU, fill_kernel, nullptr, DTypeSet::all(),
                    kHostKernelSource);
}

void restore_host_kernels(Dispatcher& d) {
  if (!d.op("copy_").kernel(kCPU))
    d.register_kernel("copy_", kCPU, copy_kernel, nullptr, DTypeSet::all(), kHostKernelSource);
  if (!d.op("fill_.Scalar").kernel(kCPU))
    d.register_kernel("fill_.Scalar", kCPU, fill_kernel, nullptr, DTypeSet::all(),
                      kHostKernelSource);
}

}  // namespace plexus
