// DType names and aliases, and PyTorch's type promotion (promoteTypes, canCast, result_type).
#include "plexus/dtype.h"

#include <array>
#include <utility>

#include "plexus/error.h"

namespace plexus {

namespace {

// Canonical names, indexed by the DType's numeric value.
constexpr std::array<std::string_view, kNumDTypes> kNames = {
    "bool",  "uint8",   "int8",     "int16",   "int32",
    "int64", "float16", "bfloat16", "float32", "float64"};

// Short and C/PyTorch-style spellings accepted besides the canonical names.
constexpr std::pair<std::string_view, DType> kAliases[] = {
    {"u8", DType::U8},      {"byte", DType::U8},   {"i8", DType::I8},     {"char", DType::I8},
    {"i16", DType::I16},    {"short", DType::I16}, {"i32", DType::I32},   {"int", DType::I32},
    {"i64", DType::I64},    {"long", DType::I64},  {"f16", DType::F16},   {"half", DType::F16},
    {"bf16", DType::BF16},  {"f32", DType::F32},   {"float", DType::F32}, {"f64", DType::F64},
    {"double", DType::F64},
};

// PyTorch's default dtype, which floating Python scalars stand for.
constexpr DType kDefaultFloat = DType::F32;

// ResultTypeState's "Undefined": a tier that no operand has reached yet.
using MaybeDType = std::optional<DType>;

MaybeDType promote_defined(MaybeDType a, DType b) {
  return a ? promote_types(*a, b) : b;
}

// The result of a higher tier unless the lower tier is of a higher category
// (bool < integral < floating), then the two promoted (PyTorch's combine_categories).
MaybeDType combine_categories(MaybeDType higher, MaybeDType lower) {
  if (!higher) return lower;
  if (!lower || is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

std::string_view dtype_name(DType t) {
  const auto i = static_cast<size_t>(t);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<DType>(i);
  }
  for (const auto& [alias, t] : kAliases) {
    if (alias == name) return t;
  }
  return std::nullopt;
}

std::string DTypeSet::str() const {
  std::string out;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!contains(static_cast<DType>(i))) continue;
    if (!out.empty()) out += ", ";
    out += kNames[i];
  }
  return out.empty() ? "none" : out;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_floating(a) != is_floating(b)) return is_floating(a) ? a : b;
  // f16 and bf16 are the only distinct same-size floats: neither holds the other.
  if (is_floating(a) && itemsize(a) == itemsize(b)) return DType::F32;
  // u8 and i8 are the only distinct same-size integers: i16 holds both.
  if (!is_floating(a) && itemsize(a) == itemsize(b)) return DType::I16;
  return itemsize(a) > itemsize(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && is_integral(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

DType result_type(std::span<const Operand> ops) {
  PLEXUS_CHECK(!ops.empty(), ErrorCode::InvalidArgument, "result_type needs at least one operand");
  MaybeDType dim_result, zero_result, wrapped_result;
  for (const Operand& op : ops) {
    switch (op.kind) {
      case OperandKind::Tensor:
        dim_result = promote_defined(dim_result, op.dtype);
        break;
      case OperandKind::ZeroDimTensor:
        zero_result = promote_defined(zero_result, op.dtype);
        break;
      case OperandKind::Scalar:
        wrapped_result =
            promote_defined(wrapped_result, is_floating(op.dtype) ? kDefaultFloat : op.dtype);
        break;
    }
  }
  return *combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
}

}  // namespace plexus
