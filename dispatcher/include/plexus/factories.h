// Tensor factories: new tensors on a device, filled or not.
#pragma once

#include <functional>

#include "plexus/tensor.h"

namespace plexus {

// Uninitialized contiguous tensor. Throws on negative or overflowing sizes.
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
// Uninitialized tensor with t's sizes, contiguous, with t's dtype and device unless given.
Tensor empty_like(const Tensor& t);
Tensor empty_like(const Tensor& t, TensorOptions options);
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options = {});
// 0-d tensor holding `value` (dtype from options).
Tensor scalar_tensor(Scalar value, TensorOptions options = {});
// The 0-d cpu tensor a C++ number becomes when passed where a Tensor is
// expected: int64, float64 or bool, marked so promotion ranks it as a scalar.
Tensor wrapped_scalar(Scalar value);
// [start, end) in steps of `step`; integers give int64, otherwise float32 unless given.
Tensor arange(Scalar end, std::optional<TensorOptions> options = std::nullopt);
Tensor arange(Scalar start, Scalar end, Scalar step = 1,
              std::optional<TensorOptions> options = std::nullopt);
// A tensor over memory the caller owns (host or device addresses of options.device).
// `deleter`, if given, is called with `data` when the last reference is gone.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options,
                 std::function<void(void*)> deleter = {});
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options,
                 std::function<void(void*)> deleter = {});
// A cpu tensor with these values and sizes (one value per element).
template <typename T>
Tensor tensor(std::initializer_list<T> values, IntArrayRef sizes);
template <typename T>
Tensor tensor(std::initializer_list<T> values);

}  // namespace plexus

#include <cstring>

namespace plexus {
template <typename T>
Tensor tensor(std::initializer_list<T> values, IntArrayRef sizes) {
  Tensor t = empty(sizes, TensorOptions(dtype_of<T>()));
  PLEXUS_CHECK(static_cast<size_t>(t.numel()) == values.size(), ErrorCode::InvalidArgument,
               "tensor(): {} values do not fill sizes {}", values.size(), shape_str(sizes));
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}
template <typename T>
Tensor tensor(std::initializer_list<T> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return tensor<T>(values, IntArrayRef(&n, 1));
}
}  // namespace plexus
