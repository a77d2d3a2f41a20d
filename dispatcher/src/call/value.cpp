#include "plexus/value.h"

#include "plexus/error.h"

namespace plexus {

std::string_view Value::tag_name(Tag t) {
  switch (t) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::TensorList: return "Tensor[]";
    case Tag::Scalar: return "Scalar";
    case Tag::Int: return "int";
    case Tag::IntList: return "int[]";
    case Tag::Double: return "float";
    case Tag::Bool: return "bool";
    case Tag::String: return "str";
    case Tag::DType: return "ScalarType";
    case Tag::Device: return "Device";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong(Value::Tag want, Value::Tag got) {
  fail(ErrorCode::InvalidArgument, "expected a {}, got a {}", Value::tag_name(want),
       Value::tag_name(got));
}
}  // namespace

void Value::wrong_tag(Tag want) const { wrong(want, tag_); }
std::span<const Tensor> Value::to_tensor_list() const {
  if (tag_ != Tag::TensorList) wrong(Tag::TensorList, tag_);
  return {u_.tl.p, u_.tl.n};
}
Scalar Value::to_scalar() const {
  switch (tag_) {
    case Tag::Scalar: return s_;
    case Tag::Int: return Scalar(u_.i);
    case Tag::Double: return Scalar(u_.d);
    case Tag::Bool: return Scalar(u_.b);
    default: wrong(Tag::Scalar, tag_);
  }
}
int64_t Value::to_int() const {
  if (tag_ == Tag::Scalar && s_.is_integral()) return s_.to_int();
  if (tag_ != Tag::Int) wrong(Tag::Int, tag_);
  return u_.i;
}
IntArrayRef Value::to_int_list() const {
  if (tag_ != Tag::IntList) wrong(Tag::IntList, tag_);
  return {u_.il.p, u_.il.n};
}
double Value::to_double() const {
  if (tag_ == Tag::Int) return static_cast<double>(u_.i);
  if (tag_ == Tag::Scalar && !s_.is_bool()) return s_.to_double();
  if (tag_ != Tag::Double) wrong(Tag::Double, tag_);
  return u_.d;
}
bool Value::to_bool() const {
  if (tag_ != Tag::Bool) wrong(Tag::Bool, tag_);
  return u_.b;
}
std::string_view Value::to_string() const {
  if (tag_ != Tag::String) wrong(Tag::String, tag_);
  return {u_.str.p, u_.str.n};
}
DType Value::to_dtype() const {
  if (tag_ != Tag::DType) wrong(Tag::DType, tag_);
  return u_.dt;
}
Device Value::to_device() const {
  if (tag_ != Tag::Device) wrong(Tag::Device, tag_);
  return u_.dev;
}

}  // namespace plexus
