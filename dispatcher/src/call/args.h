// The boxed arguments of one call, copied into a fixed buffer so meta
// functions and the cpu fallback may rewrite them.
#pragma once

#include <cstring>
#include <new>
#include <span>

#include "plexus/error.h"
#include "plexus/value.h"

namespace plexus {

// Values are trivially copyable, so filling the buffer is a memcpy.
class Args {
 public:
  static constexpr size_t kCapacity = 24;
  Args(std::span<const Value> v) : n_(v.size()) {
    PLEXUS_CHECK(n_ < kCapacity, ErrorCode::Unsupported, "ops take at most {} arguments",
                 kCapacity - 1);
    std::memcpy(static_cast<void*>(buf_), v.data(), n_ * sizeof(Value));
  }
  Value* begin() { return data(); }
  Value* end() { return data() + n_; }
  Value* data() { return std::launder(reinterpret_cast<Value*>(buf_)); }
  size_t size() const { return n_; }
  Value& operator[](size_t i) { return data()[i]; }
  void resize(size_t n) { n_ = n; }
  void push_back(const Value& v) { std::memcpy(static_cast<void*>(data() + n_++), &v, sizeof(Value)); }
  std::span<const Value> span() { return {data(), n_}; }

 private:
  static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_destructible_v<Value>);
  alignas(Value) std::byte buf_[kCapacity * sizeof(Value)];
  size_t n_;
};

}  // namespace plexus
