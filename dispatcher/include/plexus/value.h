// Value: one boxed argument of an op call. It borrows what it refers to
// (tensors, lists, strings); the referent must outlive the call.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "plexus/device.h"
#include "plexus/dtype.h"
#include "plexus/scalar.h"
#include "plexus/shape.h"
#include "plexus/tensor.h"

namespace plexus {

class Value {
 public:
  enum class Tag : uint8_t { None, Tensor, TensorList, Scalar, Int, IntList, Double, Bool, String,
                             DType, Device };

  Value() : tag_(Tag::None) {}
  // An undefined tensor is stored as None (for Tensor? arguments).
  static Value tensor(const Tensor& t) {
    Value v;
    if (t.defined()) v.set(Tag::Tensor).u_.t = &t;
    return v;
  }
  static Value tensor_list(std::span<const Tensor> ts) {
    Value v;
    v.set(Tag::TensorList).u_.tl = {ts.data(), ts.size()};
    return v;
  }
  static Value scalar(Scalar s) {
    Value v;
    v.set(Tag::Scalar);
    v.s_ = s;
    return v;
  }
  static Value integer(int64_t i) {
    Value v;
    v.set(Tag::Int).u_.i = i;
    return v;
  }
  static Value int_list(IntArrayRef l) {
    Value v;
    v.set(Tag::IntList).u_.il = {l.data(), l.size()};
    return v;
  }
  static Value real(double d) {
    Value v;
    v.set(Tag::Double).u_.d = d;
    return v;
  }
  static Value boolean(bool b) {
    Value v;
    v.set(Tag::Bool).u_.b = b;
    return v;
  }
  static Value string(std::string_view s) {
    Value v;
    v.set(Tag::String).u_.str = {s.data(), s.size()};
    return v;
  }
  static Value dtype(DType t) {
    Value v;
    v.set(Tag::DType).u_.dt = t;
    return v;
  }
  static Value device(Device d) {
    Value v;
    v.set(Tag::Device).u_.dev = d;
    return v;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  // Accessors throw InvalidArgument when the tag differs (Int reads as Scalar/Double too).
  const Tensor& to_tensor() const {
    if (tag_ != Tag::Tensor) [[unlikely]] wrong_tag(Tag::Tensor);
    return *u_.t;
  }
  std::span<const Tensor> to_tensor_list() const;
  Scalar to_scalar() const;
  int64_t to_int() const;
  IntArrayRef to_int_list() const;
  double to_double() const;
  bool to_bool() const;
  std::string_view to_string() const;
  DType to_dtype() const;
  Device to_device() const;
  // Name of a tag, for messages: "Tensor", "int[]", ...
  static std::string_view tag_name(Tag t);

 private:
  [[noreturn]] void wrong_tag(Tag want) const;
  Value& set(Tag t) {
    tag_ = t;
    return *this;
  }
  Tag tag_;
  union {
    const Tensor* t;
    struct {
      const Tensor* p;
      size_t n;
    } tl;
    int64_t i;
    struct {
      const int64_t* p;
      size_t n;
    } il;
    double d;
    bool b;
    struct {
      const char* p;
      size_t n;
    } str;
    DType dt;
    Device dev;
  } u_{};
  Scalar s_;
};

}  // namespace plexus
