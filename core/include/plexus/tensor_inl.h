// Template parts of tensor.h: dtype_of<T>, data<T>, item<T>, tolist<T>.
#pragma once

#include "plexus/error.h"
#include "plexus/half.h"

namespace plexus {

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::U8;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::I8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::I16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
  else if constexpr (std::is_same_v<T, Half>) return DType::F16;
  else if constexpr (std::is_same_v<T, BFloat16>) return DType::BF16;
  else if constexpr (std::is_same_v<T, float>) return DType::F32;
  else if constexpr (std::is_same_v<T, double>) return DType::F64;
  else static_assert(sizeof(T) == 0, "no plexus dtype for this C++ type");
}

template <typename T>
T* Tensor::data() const {
  PLEXUS_CHECK(defined() && device().is_cpu(), ErrorCode::InvalidArgument,
               "data<T>() needs a defined cpu tensor, got {}", defined() ? str() : "undefined");
  PLEXUS_CHECK(dtype() == dtype_of<T>(), ErrorCode::InvalidArgument,
               "data<T>(): the tensor holds {}, not {}", dtype_name(dtype()),
               dtype_name(dtype_of<T>()));
  return static_cast<T*>(data_ptr());
}

template <typename T>
T Tensor::item() const {
  Scalar s = item();
  if constexpr (std::is_same_v<T, bool>) return s.to_bool();
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(s.to_int());
  else return static_cast<T>(s.to_double());
}

template <typename T>
std::vector<T> Tensor::tolist() const {
  if (detail::g_host_read_hook) detail::g_host_read_hook(*this, "tolist()");
  Tensor host = to(Device(), dtype_of<T>()).contiguous();
  const T* p = static_cast<const T*>(host.data_ptr());
  return std::vector<T>(p, p + host.numel());
}

}  // namespace plexus
