#include "plexus/factories.h"

#include <cmath>

#include "plexus/dtype_dispatch.h"
#include "plexus/ops.h"

namespace plexus {

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  int64_t numel = checked_numel(sizes);
  size_t nbytes;
  PLEXUS_CHECK(!__builtin_mul_overflow(static_cast<size_t>(numel), itemsize(options.dtype),
                                       &nbytes),
               ErrorCode::InvalidArgument, "sizes {} of {} need more bytes than fit in size_t",
               shape_str(sizes), dtype_name(options.dtype));
  auto impl = boost::intrusive_ptr<TensorImpl>(new TensorImpl);
  impl->storage = Storage(new StorageImpl(options.device, nbytes));
  impl->sizes.assign(sizes.begin(), sizes.end());
  impl->strides = contiguous_strides(sizes);
  impl->numel = numel;
  impl->dtype = options.dtype;
  return Tensor(std::move(impl));
}

Tensor empty_like(const Tensor& t) { return empty(t.sizes(), {t.dtype(), t.device()}); }
Tensor empty_like(const Tensor& t, TensorOptions options) { return empty(t.sizes(), options); }

Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options) {
  Tensor t = empty(sizes, options);
  t.fill_(value);
  return t;
}
Tensor zeros(IntArrayRef sizes, TensorOptions options) { return full(sizes, 0, options); }
Tensor ones(IntArrayRef sizes, TensorOptions options) { return full(sizes, 1, options); }
Tensor scalar_tensor(Scalar value, TensorOptions options) { return full({}, value, options); }

Tensor wrapped_scalar(Scalar value) {
  Tensor t = empty({}, TensorOptions(value.dtype()));
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) *t.data<T>() = value.to_bool();
    else if constexpr (std::is_same_v<T, int64_t>) *t.data<T>() = value.to_int();
    else if constexpr (std::is_same_v<T, double>) *t.data<T>() = value.to_double();
  });
  t.impl()->wrapped_number = true;
  return t;
}

Tensor arange(Scalar end, std::optional<TensorOptions> options) {
  return arange(0, end, 1, options);
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<TensorOptions> options) {
  bool integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  TensorOptions opt = options.value_or(TensorOptions(integral ? DType::I64 : DType::F32));
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  PLEXUS_CHECK(st != 0 && std::isfinite(s) && std::isfinite(e) && std::isfinite(st),
               ErrorCode::InvalidArgument,
               "arange: start {}, end {} and step {} must be finite with a nonzero step",
               start.str(), end.str(), step.str());
  PLEXUS_CHECK((e - s) / st >= 0 || s == e, ErrorCode::InvalidArgument,
               "arange: step {} moves away from end {} (start {})", step.str(), end.str(),
               start.str());
  int64_t n = static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor host = empty({n}, TensorOptions(opt.dtype));
  visit_dtype(opt.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = host.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (integral) p[i] = convert_value<T>(start.to_int() + i * step.to_int());
      else p[i] = convert_value<T>(s + static_cast<double>(i) * st);
    }
  });
  return opt.device.is_cpu() ? host : host.to(opt.device);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options,
                 std::function<void(void*)> deleter) {
  PLEXUS_CHECK(sizes.size() == strides.size(), ErrorCode::InvalidArgument,
               "from_blob: sizes {} and strides {} have different lengths", shape_str(sizes),
               shape_str(strides));
  int64_t numel = checked_numel(sizes);
  // The offset of the last element, and the bytes up to it: refused when
  // they pass int64 (a hostile DLPack descriptor's strides; found by
  // tests/fuzz/dlpack_fuzz.cpp).
  int64_t last = 0, nbytes = 0;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    PLEXUS_CHECK(strides[i] >= 0, ErrorCode::InvalidArgument,
                 "from_blob: strides {} must be non-negative", shape_str(strides));
    int64_t reach = 0;
    if (numel > 0)
      overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                 __builtin_add_overflow(last, reach, &last);
  }
  if (numel > 0)
    overflow = overflow || __builtin_add_overflow(last, 1, &nbytes) ||
               __builtin_mul_overflow(nbytes, int64_t(itemsize(options.dtype)), &nbytes);
  PLEXUS_CHECK(!overflow, ErrorCode::InvalidArgument,
               "from_blob: sizes {} with strides {} reach past 2^63 bytes", shape_str(sizes),
               shape_str(strides));
  PLEXUS_CHECK(data != nullptr || numel == 0, ErrorCode::InvalidArgument,
               "from_blob: data is null for {} elements", numel);
  Storage s(new StorageImpl(options.device, data, size_t(nbytes), std::move(deleter)));
  return Tensor::make(std::move(s), options.dtype, sizes, strides, 0);
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options,
                 std::function<void(void*)> deleter) {
  return from_blob(data, sizes, contiguous_strides(sizes), options, std::move(deleter));
}

}  // namespace plexus
