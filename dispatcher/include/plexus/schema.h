// Operator schemas in PyTorch's native_functions syntax: the parsed form, its
// canonical text, and the queries the dispatcher asks of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace plexus {

// The element kind of an argument or return, before list and optional suffixes.
enum class BaseType : uint8_t { Tensor, Scalar, Int, Float, Bool, Str, ScalarType, Device };

// The spelling used in schemas: "Tensor", "Scalar", "int", "float", "bool", "str", ...
std::string_view base_type_name(BaseType t);
// The base type spelled `name` in a schema, or nothing for an unknown name.
std::optional<BaseType> base_type_from_name(std::string_view name);

// The full type of an argument or return: "int", "int[2]", "Tensor[]", "ScalarType?".
struct SchemaType {
  BaseType base = BaseType::Tensor;  // the element kind
  bool is_list = false;              // "[]" or "[N]" suffix
  std::optional<int> list_size;      // N in "int[N]"; empty for "int[]"
  bool optional = false;             // trailing "?": may be None

  // Schema text without alias annotation: "int[1]?".
  std::string str() const;
  bool operator==(const SchemaType&) const = default;
};

// Alias annotation on a Tensor type: "(a)" shares storage set a, "(a!)" also writes it.
struct AliasInfo {
  std::string set;        // "a"
  bool is_write = false;  // the "!" marker

  // The text inside the parentheses: "a!".
  std::string str() const;
  bool operator==(const AliasInfo&) const = default;
};

// A parsed default: None, a bool, an integer, a float, a string (str, Device and
// ScalarType names) or an integer list (fixed-size lists given one value are expanded).
using DefaultValue =
    std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>>;

// Schema text for a default value: "None", "True", "1", "0.5", "'none'", "[0, 0]".
std::string default_value_text(const DefaultValue& v);

// One declared argument: "Tensor(a!) out", "int[2] stride=1".
struct Argument {
  std::string name;                           // "self"
  SchemaType type;                            // its type
  std::optional<AliasInfo> alias;             // "(a!)" on Tensor types
  bool kwarg_only = false;                    // declared after "*"
  std::optional<DefaultValue> default_value;  // the parsed default, when one is given
  std::string default_text;                   // the default as written ("1e-05", "'none'")

  // Canonical text: "Scalar alpha=1".
  std::string str() const;
  bool operator==(const Argument&) const = default;
};

// One declared result: "Tensor", "Tensor(a!)", "Tensor values".
struct Return {
  std::string name;                // "values"; empty when unnamed
  SchemaType type;                 // its type
  std::optional<AliasInfo> alias;  // "(a!)" when it aliases an argument

  // Canonical text: "Tensor(a!) out".
  std::string str() const;
  bool operator==(const Return&) const = default;
};

// A parsed operator schema: "[ns::]name[.overload](arguments) -> returns".
struct Schema {
  std::string ns;                   // "" for core ops, "myvendor" for "myvendor::fused_gelu"
  std::string name;                 // "add"
  std::string overload;             // "Tensor"; "" when none
  std::vector<Argument> arguments;  // in declaration order
  std::vector<Return> returns;      // in declaration order

  // The operator's identity: "add.Tensor", "myvendor::fused_gelu".
  std::string full_name() const;
  // Canonical text, as in native_functions.yaml; parse_schema(s).str() == s for canonical s.
  std::string str() const;
  // True for out variants: a keyword-only Tensor argument that is written ("(a!)").
  bool is_out() const;
  // True for in-place ops: name ends in '_' and the first argument is a written "self".
  bool is_inplace() const;
  // Position of the argument called `arg_name`, or -1 when there is none.
  int argument_index(std::string_view arg_name) const;
  bool operator==(const Schema&) const = default;
};

// Parses schema text; throws Error(InvalidArgument) naming the column and the reason.
Schema parse_schema(std::string_view text);

}  // namespace plexus
