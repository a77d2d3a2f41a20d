// Reading a kernel call's arguments by position, in schema order. A wrong
// position or kind throws Error(INVALID_ARGUMENT) naming the op, the position
// and what was expected and found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "plexus/plugin.h"
#include "plexus/sdk/dtype.hpp"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// A read-only array the host owns for the duration of the call.
template <typename T>
struct Span {
  const T* items = nullptr;
  int64_t count = 0;

  const T* begin() const { return items; }
  const T* end() const { return items + count; }
  int64_t size() const { return count; }
  bool empty() const { return count == 0; }
  const T& operator[](int64_t i) const { return items[i]; }
};

// A Scalar argument: bool, 64-bit integer or double.
class Scalar {
 public:
  explicit Scalar(const plexus_scalar& s) : s_(s) {}
  bool is_bool() const { return s_.kind == PLEXUS_SCALAR_BOOL; }
  bool is_integral() const { return s_.kind == PLEXUS_SCALAR_INT; }
  bool is_floating() const { return s_.kind == PLEXUS_SCALAR_FLOAT; }
  double to_double() const { return is_floating() ? s_.v.f : static_cast<double>(s_.v.i); }
  // A floating value converts as convert<int64_t> does (truncates, saturates).
  int64_t to_int() const { return is_floating() ? convert<int64_t>(s_.v.f) : s_.v.i; }
  bool to_bool() const { return is_floating() ? s_.v.f != 0.0 : s_.v.i != 0; }
  // The value as element type T, converted as convert<T> does.
  template <typename T>
  T to() const {
    if (is_floating()) return convert<T>(s_.v.f);
    if (is_bool()) return convert<T>(s_.v.i != 0);
    return convert<T>(s_.v.i);
  }

 private:
  plexus_scalar s_;
};

// A Device argument: the device type's slot and the index.
struct DeviceArg {
  int32_t type;
  int32_t index;
};

// The schema spelling of a value tag ("Tensor", "int[]", ...).
inline const char* value_tag_name(plexus_value_tag tag) noexcept {
  static const char* const names[] = {"None",  "Tensor", "Tensor[]", "Scalar",     "int",   "int[]",
                                      "float", "bool",   "str",      "ScalarType", "Device"};
  return tag >= 0 && tag <= PLEXUS_VALUE_DEVICE ? names[tag] : "<invalid tag>";
}

// The arguments of one call; valid while the call is.
class Args {
 public:
  explicit Args(const plexus_kernel_call& call) : call_(call) {}

  int64_t size() const { return call_.num_args; }
  const char* op() const { return call_.op; }
  // The raw value at position i.
  const plexus_value& value(int64_t i) const {
    if (i < 0 || i >= call_.num_args)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(call_.op) + ": argument " +
                                              std::to_string(i) + " requested, but the call has " +
                                              std::to_string(call_.num_args));
    return call_.args[i];
  }
  plexus_value_tag tag(int64_t i) const { return value(i).tag; }
  // True for an optional argument that was not given.
  bool is_none(int64_t i) const { return tag(i) == PLEXUS_VALUE_NONE; }

  const plexus_tensor& tensor(int64_t i) const { return *get(i, PLEXUS_VALUE_TENSOR).u.tensor; }
  Span<plexus_tensor> tensor_list(int64_t i) const {
    const auto& l = get(i, PLEXUS_VALUE_TENSOR_LIST).u.tensor_list;
    return {l.items, l.count};
  }
  Scalar scalar(int64_t i) const { return Scalar(get(i, PLEXUS_VALUE_SCALAR).u.scalar); }
  int64_t integer(int64_t i) const { return get(i, PLEXUS_VALUE_INT).u.i; }
  double floating(int64_t i) const { return get(i, PLEXUS_VALUE_FLOAT).u.f; }
  bool boolean(int64_t i) const { return get(i, PLEXUS_VALUE_BOOL).u.b != 0; }
  Span<int64_t> int_list(int64_t i) const {
    const auto& l = get(i, PLEXUS_VALUE_INT_LIST).u.int_list;
    return {l.items, l.count};
  }
  std::string_view string(int64_t i) const {
    const auto& s = get(i, PLEXUS_VALUE_STRING).u.string;
    return {s.data, static_cast<size_t>(s.size)};
  }
  plexus_dtype dtype(int64_t i) const { return get(i, PLEXUS_VALUE_DTYPE).u.dtype; }
  DeviceArg device(int64_t i) const {
    const auto& d = get(i, PLEXUS_VALUE_DEVICE).u.device;
    return {d.type, d.index};
  }

  // The optional forms: nullptr / std::nullopt for None, else as above.
  const plexus_tensor* optional_tensor(int64_t i) const {
    return is_none(i) ? nullptr : &tensor(i);
  }
  std::optional<Scalar> optional_scalar(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<Scalar>(scalar(i));
  }
  std::optional<int64_t> optional_integer(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<int64_t>(integer(i));
  }
  std::optional<double> optional_floating(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<double>(floating(i));
  }
  std::optional<bool> optional_boolean(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<bool>(boolean(i));
  }
  std::optional<Span<int64_t>> optional_int_list(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<Span<int64_t>>(int_list(i));
  }
  std::optional<std::string_view> optional_string(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<std::string_view>(string(i));
  }
  std::optional<plexus_dtype> optional_dtype(int64_t i) const {
    return is_none(i) ? std::nullopt : std::optional<plexus_dtype>(dtype(i));
  }

 private:
  const plexus_value& get(int64_t i, plexus_value_tag expected) const {
    const plexus_value& v = value(i);
    if (v.tag != expected)
      fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(call_.op) + ": argument " +
                                              std::to_string(i) + " is " + value_tag_name(v.tag) +
                                              ", expected " + value_tag_name(expected));
    return v;
  }

  const plexus_kernel_call& call_;
};

}  // namespace plexus::sdk
