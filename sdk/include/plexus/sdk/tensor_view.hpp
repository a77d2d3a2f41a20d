// TensorView<T>: a typed strided view of a plexus_tensor whose elements the
// plugin can address on the host (cpu-like devices, or a simulator that
// translates its device handles first).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "plexus/plugin.h"
#include "plexus/sdk/dtype.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

template <typename T>
class TensorView {
 public:
  using value_type = std::remove_const_t<T>;
  // The storage base pointer: const for a view of const elements.
  using base_pointer = std::conditional_t<std::is_const_v<T>, const void*, void*>;

  // Views t, whose storage is a host pointer. Throws Error(INVALID_ARGUMENT)
  // when t's dtype is not stored as T.
  explicit TensorView(const plexus_tensor& t) : TensorView(t, t.storage) {}
  // Views t with its storage at host address `base` (for a backend whose
  // device pointers are handles it maps to host memory itself).
  TensorView(const plexus_tensor& t, base_pointer base)
      : sizes_(t.sizes), strides_(t.strides), ndim_(t.ndim) {
    if (t.dtype != dtype_of<value_type>())
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string("TensorView of ") +
                                              dtype_name(dtype_of<value_type>()) +
                                              " over a tensor of " + dtype_name(t.dtype));
    data_ = base ? static_cast<T*>(base) + t.offset : nullptr;
    numel_ = count(ndim_, sizes_);
  }
  // Views memory the plugin owns: element [0, ..., 0] at `data`. sizes and
  // strides (in elements) must outlive the view.
  TensorView(T* data, int32_t ndim, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides), ndim_(ndim), numel_(count(ndim, sizes)) {}

  int32_t ndim() const { return ndim_; }
  const int64_t* sizes() const { return sizes_; }
  const int64_t* strides() const { return strides_; }
  int64_t size(int32_t dim) const { return sizes_[dim]; }
  int64_t stride(int32_t dim) const { return strides_[dim]; }
  int64_t numel() const { return numel_; }
  // Element [0, ..., 0]: storage + offset.
  T* data() const { return data_; }

  // True when the elements are dense in row-major order.
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int32_t d = ndim_ - 1; d >= 0; --d) {
      if (sizes_[d] != 1 && strides_[d] != expected) return false;
      expected *= sizes_[d];
    }
    return true;
  }
  // The element at a multi-index of ndim() entries.
  T& at(const int64_t* index) const {
    int64_t off = 0;
    for (int32_t d = 0; d < ndim_; ++d) off += index[d] * strides_[d];
    return data_[off];
  }
  // The element at a multi-index given as ndim() integers: v(i, j).
  template <typename... I>
  T& operator()(I... index) const {
    static_assert((std::is_integral_v<I> && ...), "TensorView: indices must be integers");
    if (static_cast<int32_t>(sizeof...(I)) != ndim_)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, "TensorView: " + std::to_string(sizeof...(I)) +
                                              " indices for a view of " + std::to_string(ndim_) +
                                              " dims");
    const int64_t idx[sizeof...(I) + 1] = {static_cast<int64_t>(index)..., 0};
    return at(idx);
  }
  // The element at position `linear` in row-major order of the view's shape.
  T& operator[](int64_t linear) const {
    int64_t off = 0;
    for (int32_t d = ndim_ - 1; d >= 0; --d) {
      off += (linear % sizes_[d]) * strides_[d];
      linear /= sizes_[d];
    }
    return data_[off];
  }

 private:
  static int64_t count(int32_t ndim, const int64_t* sizes) {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }

  T* data_ = nullptr;
  const int64_t* sizes_;
  const int64_t* strides_;
  int32_t ndim_;
  int64_t numel_ = 0;
};

}  // namespace plexus::sdk
