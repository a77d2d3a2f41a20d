// Scalar: a number passed to an op (alpha, fill value, clamp bounds), kept
// exactly as bool, 64-bit integer or double.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "plexus/dtype.h"

namespace plexus {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool b) : kind_(Kind::Bool) { v_.i = b; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T i) : kind_(Kind::Int) {
    v_.i = static_cast<int64_t>(i);
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T d) : kind_(Kind::Float) {
    v_.d = static_cast<double>(d);
  }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  // The dtype this scalar stands for in type promotion: Bool, I64 or F64.
  DType dtype() const {
    return kind_ == Kind::Bool ? DType::Bool : kind_ == Kind::Int ? DType::I64 : DType::F64;
  }
  double to_double() const { return kind_ == Kind::Float ? v_.d : static_cast<double>(v_.i); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(v_.d) : v_.i; }
  bool to_bool() const { return kind_ == Kind::Float ? v_.d != 0.0 : v_.i != 0; }
  // "2.5", "3", "True"
  std::string str() const;
  bool operator==(const Scalar& o) const;

 private:
  Kind kind_;
  union {
    int64_t i;
    double d;
  } v_;
};

}  // namespace plexus
