// DType names, sizes and PyTorch's type promotion rules.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <vector>

#include "plexus/dtype.h"
#include "plexus/error.h"

namespace plexus {
namespace {

constexpr std::array<DType, kNumDTypes> kAll = {DType::Bool, DType::U8,  DType::I8,  DType::I16,
                                                DType::I32,  DType::I64, DType::F16, DType::BF16,
                                                DType::F32,  DType::F64};

constexpr OperandKind T = OperandKind::Tensor;
constexpr OperandKind Z = OperandKind::ZeroDimTensor;
constexpr OperandKind S = OperandKind::Scalar;

DType result_of(std::initializer_list<Operand> ops) {
  return result_type(std::span<const Operand>(ops.begin(), ops.size()));
}

}  // namespace

TEST_CASE("dtype names round-trip", "[dtype]") {
  const std::array<std::string_view, kNumDTypes> names = {
      "bool",  "uint8",   "int8",     "int16",   "int32",
      "int64", "float16", "bfloat16", "float32", "float64"};
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = kAll[i];
    CHECK(dtype_name(t) == names[i]);
    CHECK(dtype_from_name(names[i]) == t);
  }
}

TEST_CASE("dtype aliases", "[dtype]") {
  CHECK(dtype_from_name("u8") == DType::U8);
  CHECK(dtype_from_name("byte") == DType::U8);
  CHECK(dtype_from_name("i8") == DType::I8);
  CHECK(dtype_from_name("char") == DType::I8);
  CHECK(dtype_from_name("i16") == DType::I16);
  CHECK(dtype_from_name("short") == DType::I16);
  CHECK(dtype_from_name("i32") == DType::I32);
  CHECK(dtype_from_name("int") == DType::I32);
  CHECK(dtype_from_name("i64") == DType::I64);
  CHECK(dtype_from_name("long") == DType::I64);
  CHECK(dtype_from_name("f16") == DType::F16);
  CHECK(dtype_from_name("half") == DType::F16);
  CHECK(dtype_from_name("bf16") == DType::BF16);
  CHECK(dtype_from_name("f32") == DType::F32);
  CHECK(dtype_from_name("float") == DType::F32);
  CHECK(dtype_from_name("f64") == DType::F64);
  CHECK(dtype_from_name("double") == DType::F64);
}

TEST_CASE("unknown dtype names parse to nothing", "[dtype]") {
  for (std::string_view bad : {"", "Float32", "float128", "complex64", "uint16", "int4", "f8",
                               "float32 ", " bool", "bfloat"}) {
    INFO(bad);
    CHECK_FALSE(dtype_from_name(bad).has_value());
  }
}

TEST_CASE("dtype itemsize and categories", "[dtype]") {
  const std::array<size_t, kNumDTypes> sizes = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (int i = 0; i < kNumDTypes; ++i) CHECK(itemsize(kAll[i]) == sizes[i]);
  CHECK(is_floating(DType::BF16));
  CHECK_FALSE(is_floating(DType::I64));
  CHECK(is_integral(DType::U8));
  CHECK_FALSE(is_integral(DType::Bool));
  CHECK(is_integral(DType::Bool, /*include_bool=*/true));
  CHECK_FALSE(is_signed(DType::U8));
  CHECK(is_signed(DType::I8));
}

TEST_CASE("DTypeSet lists its members in enum order", "[dtype]") {
  CHECK(DTypeSet{}.str() == "none");
  CHECK(DTypeSet{DType::F64, DType::F32}.str() == "float32, float64");
  CHECK(DTypeSet::floating().str() == "float16, bfloat16, float32, float64");
  CHECK(DTypeSet::all().str() ==
        "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64");
  CHECK((DTypeSet::integral() | DTypeSet{DType::Bool}).str() ==
        "bool, uint8, int8, int16, int32, int64");
}

// PyTorch's promoteTypes table (c10/core/ScalarType.cpp), restricted to the
// plexus dtypes and written out in plexus enum order.
TEST_CASE("promote_types matches PyTorch's table", "[dtype]") {
  constexpr DType b1 = DType::Bool, u1 = DType::U8, i1 = DType::I8, i2 = DType::I16,
                  i4 = DType::I32, i8 = DType::I64, f2 = DType::F16, bf = DType::BF16,
                  f4 = DType::F32, f8 = DType::F64;
  // clang-format off
  constexpr DType expected[kNumDTypes][kNumDTypes] = {
      //         b1  u1  i1  i2  i4  i8  f2  bf  f4  f8
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  // clang-format on
  for (int i = 0; i < kNumDTypes; ++i) {
    for (int j = 0; j < kNumDTypes; ++j) {
      INFO(dtype_name(kAll[i]) << " + " << dtype_name(kAll[j]));
      CHECK(promote_types(kAll[i], kAll[j]) == expected[i][j]);
      CHECK(promote_types(kAll[i], kAll[j]) == promote_types(kAll[j], kAll[i]));
    }
  }
}

TEST_CASE("can_cast forbids float to integral and anything to bool", "[dtype]") {
  for (DType from : kAll) {
    for (DType to : kAll) {
      INFO(dtype_name(from) << " -> " << dtype_name(to));
      const bool float_to_int = is_floating(from) && !is_floating(to);
      const bool to_bool = to == DType::Bool && from != DType::Bool;
      CHECK(can_cast(from, to) == !(float_to_int || to_bool));
    }
  }
  CHECK(can_cast(DType::Bool, DType::F16));
  CHECK(can_cast(DType::I64, DType::U8));  // narrowing within a category is allowed
  CHECK(can_cast(DType::F64, DType::F16));
  CHECK(can_cast(DType::Bool, DType::Bool));
  CHECK_FALSE(can_cast(DType::F32, DType::I64));
  CHECK_FALSE(can_cast(DType::BF16, DType::Bool));
  CHECK_FALSE(can_cast(DType::U8, DType::Bool));
}

TEST_CASE("result_type: same-tier operands promote", "[dtype]") {
  CHECK(result_of({{DType::U8, T}, {DType::I8, T}}) == DType::I16);
  CHECK(result_of({{DType::F16, T}, {DType::BF16, T}}) == DType::F32);
  CHECK(result_of({{DType::I32, T}, {DType::F16, T}}) == DType::F16);
  CHECK(result_of({{DType::U8, Z}, {DType::I8, Z}}) == DType::I16);
  CHECK(result_of({{DType::I64, T}}) == DType::I64);
  CHECK(result_of({{DType::F64, Z}}) == DType::F64);
}

TEST_CASE("result_type: scalars stand for int64, float32 or bool", "[dtype]") {
  CHECK(result_of({{DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::I64, S}}) == DType::I64);
  CHECK(result_of({{DType::Bool, S}}) == DType::Bool);
  CHECK(result_of({{DType::I64, S}, {DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::Bool, S}, {DType::I64, S}}) == DType::I64);
}

TEST_CASE("result_type: lower tiers count only across categories", "[dtype]") {
  CHECK(result_of({{DType::I32, T}, {DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::Bool, T}, {DType::I64, S}}) == DType::I64);
  CHECK(result_of({{DType::Bool, T}, {DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::Bool, T}, {DType::Bool, S}}) == DType::Bool);
  CHECK(result_of({{DType::U8, T}, {DType::I64, Z}}) == DType::U8);
  CHECK(result_of({{DType::F16, T}, {DType::F64, Z}}) == DType::F16);
  CHECK(result_of({{DType::I32, T}, {DType::F64, Z}}) == DType::F64);
  CHECK(result_of({{DType::Bool, T}, {DType::F64, Z}}) == DType::F64);
  CHECK(result_of({{DType::I64, T}, {DType::F16, Z}}) == DType::F16);
  CHECK(result_of({{DType::BF16, T}, {DType::F16, Z}}) == DType::BF16);
  CHECK(result_of({{DType::I32, Z}, {DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::F64, Z}, {DType::I64, S}}) == DType::F64);
  CHECK(result_of({{DType::F16, Z}, {DType::F64, S}}) == DType::F16);
  CHECK(result_of({{DType::Bool, Z}, {DType::I64, S}}) == DType::I64);
  CHECK(result_of({{DType::F16, T}, {DType::F64, S}}) == DType::F16);
  CHECK(result_of({{DType::I8, T}, {DType::I64, S}}) == DType::I8);
  CHECK(result_of({{DType::U8, T}, {DType::I64, S}}) == DType::U8);
  // The zero-dim tier decides before scalars: i32 + f64 0-d gives f64, and the
  // float scalar is then the same category.
  CHECK(result_of({{DType::I32, T}, {DType::F64, Z}, {DType::F64, S}}) == DType::F64);
  // Scalars of a higher category than the zero-dim tier lift it first.
  CHECK(result_of({{DType::I16, T}, {DType::I64, Z}, {DType::F64, S}}) == DType::F32);
  CHECK(result_of({{DType::U8, T}, {DType::I8, T}, {DType::I64, Z}}) == DType::I16);
}

TEST_CASE("result_type does not depend on operand order", "[dtype]") {
  std::vector<Operand> ops = {{DType::U8, T}, {DType::I8, Z}, {DType::F64, S}, {DType::Bool, T}};
  std::sort(ops.begin(), ops.end(), [](Operand a, Operand b) {
    return std::pair(a.dtype, a.kind) < std::pair(b.dtype, b.kind);
  });
  const DType first = result_type(ops);
  CHECK(first == DType::F32);
  while (std::next_permutation(ops.begin(), ops.end(), [](Operand a, Operand b) {
    return std::pair(a.dtype, a.kind) < std::pair(b.dtype, b.kind);
  })) {
    CHECK(result_type(ops) == first);
  }
}

TEST_CASE("result_type needs an operand", "[dtype]") {
  try {
    result_type({});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
  }
}

}  // namespace plexus
