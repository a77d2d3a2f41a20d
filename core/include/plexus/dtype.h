// Element types, their names and sizes, and PyTorch's type-promotion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace plexus {

// The element types a tensor can hold. The numeric values are part of the
// plugin ABI (plexus_dtype) and never change; new types are appended.
enum class DType : uint8_t { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64 };
inline constexpr int kNumDTypes = 10;

// Canonical name: "bool", "uint8", ..., "float16", "bfloat16", "float32", "float64".
std::string_view dtype_name(DType t);
// Parses a canonical name or a common alias ("f32", "float", "half", "long", "int", ...).
std::optional<DType> dtype_from_name(std::string_view name);
// Bytes per element.
constexpr size_t itemsize(DType t) {
  constexpr size_t sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[static_cast<int>(t)];
}
constexpr bool is_floating(DType t) { return t >= DType::F16; }
constexpr bool is_integral(DType t, bool include_bool = false) {
  return (t >= DType::U8 && t <= DType::I64) || (include_bool && t == DType::Bool);
}
constexpr bool is_signed(DType t) { return t != DType::Bool && t != DType::U8; }

// The smallest type both a and b convert to without losing range
// (PyTorch's promoteTypes table: u8+i8 -> i16, f16+bf16 -> f32, int+float -> float).
DType promote_types(DType a, DType b);
// True when a value of type `from` may be written into a tensor of type `to`
// without crossing to a lower category (float -> int, int -> bool): PyTorch's canCast.
bool can_cast(DType from, DType to);

// How an operand takes part in result_type(): dimensioned tensors outrank 0-d
// tensors, which outrank Python-style scalars, unless a lower-ranked operand is
// of a higher category (bool < integral < floating).
enum class OperandKind : uint8_t { Tensor, ZeroDimTensor, Scalar };
struct Operand {
  DType dtype;
  OperandKind kind;
};
// The dtype PyTorch's torch.result_type gives for these operands. A Scalar
// operand passes its own kind of type (Bool, I64 or F64); floating scalars
// stand for the default dtype (float32). Throws if `ops` is empty.
DType result_type(std::span<const Operand> ops);

// A set of dtypes, e.g. the dtypes a kernel supports.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> ts) {
    for (DType t : ts) bits_ |= bit(t);
  }
  static constexpr DTypeSet all() { return from_bits((1u << kNumDTypes) - 1); }
  static constexpr DTypeSet floating() { return {DType::F16, DType::BF16, DType::F32, DType::F64}; }
  static constexpr DTypeSet integral() {
    return {DType::U8, DType::I8, DType::I16, DType::I32, DType::I64};
  }
  static constexpr DTypeSet from_bits(uint32_t b) {
    DTypeSet s;
    s.bits_ = b;
    return s;
  }
  constexpr bool contains(DType t) const { return bits_ & bit(t); }
  constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DTypeSet operator&(DTypeSet o) const { return from_bits(bits_ & o.bits_); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr bool operator==(const DTypeSet&) const = default;
  // "float32, float64" in enum order; "none" when empty.
  std::string str() const;

 private:
  static constexpr uint32_t bit(DType t) { return 1u << static_cast<int>(t); }
  uint32_t bits_ = 0;
};

}  // namespace plexus
