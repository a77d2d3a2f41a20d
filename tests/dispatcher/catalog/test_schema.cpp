// Specification of the schema parser: PyTorch's native_functions syntax in,
// structure and canonical text out, and a positioned reason for every rejection.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "plexus/error.h"
#include "plexus/schema.h"

using plexus::Argument;
using plexus::BaseType;
using plexus::DefaultValue;
using plexus::parse_schema;
using plexus::Schema;

namespace {

// Real schemas, already in canonical form: parsing and printing must give them back.
const std::vector<std::string> kCanonicalSchemas = {
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
    "Tensor",
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
    "int[2] dilation=1, int groups=1) -> Tensor",
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05) -> Tensor",
    "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "myvendor::fused_gelu(Tensor self) -> Tensor",
    "myvendor::fused_gelu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) max, Tensor(b!) max_values)",
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> "
    "Tensor(a)",
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "unbind.int(Tensor(a) self, int dim=0) -> Tensor(a)[]",
    "_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
    "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor",
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "int ignore_index=-100) -> Tensor",
    "dropout(Tensor input, float p, bool train) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Device? device=None) -> "
    "Tensor",
    "empty.memory_format(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "randint(int high, int[] size, *, ScalarType? dtype=long, Device? device=None) -> Tensor",
    "is_nonzero(Tensor self) -> bool",
    "item(Tensor self) -> Scalar",
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "upsample_nearest2d(Tensor self, int[2] output_size, float? scales_h=None, "
    "float? scales_w=None) -> Tensor",
    "view(Tensor(a) self, int[] size) -> Tensor(a)",
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)",
    "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> "
    "Tensor",
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "repeat_interleave.self_int(Tensor self, int repeats, int? dim=None, *, "
    "int? output_size=None) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "_fused_dropout(Tensor self, float p) -> (Tensor, Tensor)",
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor",
    "myvendor::to_device(Tensor self, Device device='cpu') -> Tensor",
    "split_with_sizes(Tensor(a) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
    "_assert_async(Tensor self) -> ()",
};

// The message of the Error that parsing `text` raises; fails the test if none is.
std::string parse_error(const std::string& text) {
  try {
    parse_schema(text);
  } catch (const plexus::Error& e) {
    CHECK(e.code() == plexus::ErrorCode::InvalidArgument);
    return e.message();
  }
  FAIL("no error for schema '" << text << "'");
  return {};
}

// A malformed schema, where the parser must stop and the reason it must give.
struct Malformed {
  std::string text;
  size_t column;
  std::string reason;
};

}  // namespace

TEST_CASE("canonical schemas print back unchanged", "[schema]") {
  for (const std::string& text : kCanonicalSchemas) {
    INFO(text);
    Schema s = parse_schema(text);
    CHECK(s.str() == text);
    CHECK(parse_schema(s.str()) == s);
  }
}

TEST_CASE("operator names: namespace, name and overload", "[schema]") {
  Schema add = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(add.ns.empty());
  CHECK(add.name == "add");
  CHECK(add.overload == "Tensor");
  CHECK(add.full_name() == "add.Tensor");

  Schema vendor = parse_schema("myvendor::fused_gelu(Tensor self) -> Tensor");
  CHECK(vendor.ns == "myvendor");
  CHECK(vendor.name == "fused_gelu");
  CHECK(vendor.overload.empty());
  CHECK(vendor.full_name() == "myvendor::fused_gelu");

  Schema vendor_out = parse_schema(
      "myvendor::fused_gelu.out(Tensor self, *, Tensor(a!) out) -> "
      "Tensor(a!)");
  CHECK(vendor_out.full_name() == "myvendor::fused_gelu.out");
  CHECK(parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").name == "add_");
}

TEST_CASE("add.out: keyword-only arguments, aliases and the out flag", "[schema]") {
  Schema s = parse_schema(
      "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  REQUIRE(s.arguments.size() == 4);
  const Argument& self = s.arguments[0];
  CHECK(self.name == "self");
  CHECK(self.type == plexus::SchemaType{});
  CHECK_FALSE(self.kwarg_only);
  CHECK_FALSE(self.alias);
  CHECK_FALSE(self.default_value);

  const Argument& alpha = s.arguments[2];
  CHECK(alpha.type.base == BaseType::Scalar);
  CHECK(alpha.kwarg_only);
  REQUIRE(alpha.default_value);
  CHECK(*alpha.default_value == DefaultValue{int64_t{1}});
  CHECK(alpha.default_text == "1");

  const Argument& out = s.arguments[3];
  CHECK(out.kwarg_only);
  REQUIRE(out.alias);
  CHECK(out.alias->set == "a");
  CHECK(out.alias->is_write);

  REQUIRE(s.returns.size() == 1);
  CHECK(s.returns[0].name.empty());
  REQUIRE(s.returns[0].alias);
  CHECK(s.returns[0].alias->str() == "a!");

  CHECK(s.is_out());
  CHECK_FALSE(s.is_inplace());
  CHECK(s.argument_index("self") == 0);
  CHECK(s.argument_index("out") == 3);
  CHECK(s.argument_index("beta") == -1);
}

TEST_CASE("in-place and functional variants are told apart", "[schema]") {
  Schema inplace =
      parse_schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  CHECK(inplace.is_inplace());
  CHECK_FALSE(inplace.is_out());

  Schema copy = parse_schema(
      "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> "
      "Tensor(a!)");
  CHECK(copy.is_inplace());

  Schema functional = parse_schema("add.Tensor(Tensor self, Tensor other) -> Tensor");
  CHECK_FALSE(functional.is_inplace());
  CHECK_FALSE(functional.is_out());

  Schema view = parse_schema("to.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)");
  REQUIRE(view.arguments[0].alias);
  CHECK_FALSE(view.arguments[0].alias->is_write);
  CHECK_FALSE(view.is_inplace());
}

TEST_CASE("list and optional types", "[schema]") {
  Schema s = parse_schema(
      "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
      "-> Tensor");
  const plexus::SchemaType& dim = s.arguments[1].type;
  CHECK(dim.base == BaseType::Int);
  CHECK(dim.is_list);
  CHECK(dim.list_size == 1);
  CHECK(dim.optional);
  CHECK(dim.str() == "int[1]?");
  CHECK_FALSE(s.arguments[1].default_value);

  CHECK(*s.arguments[2].default_value == DefaultValue{false});
  const Argument& dtype = s.arguments[3];
  CHECK(dtype.type.base == BaseType::ScalarType);
  CHECK(dtype.type.optional);
  CHECK(dtype.kwarg_only);
  CHECK(std::holds_alternative<std::monostate>(*dtype.default_value));

  Schema cat = parse_schema("cat(Tensor[] tensors, int dim=0) -> Tensor");
  CHECK(cat.arguments[0].type.is_list);
  CHECK_FALSE(cat.arguments[0].type.list_size);
  CHECK(cat.arguments[0].type.str() == "Tensor[]");

  Schema foreach = parse_schema("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other) -> ()");
  CHECK(foreach.arguments[0].type.is_list);
  CHECK(foreach.arguments[0].alias->is_write);
  CHECK(foreach.arguments[0].str() == "Tensor(a!)[] self");
  CHECK(foreach.returns.empty());
}

TEST_CASE("default values are parsed by the argument's type", "[schema]") {
  Schema conv = parse_schema(
      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
      "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor");
  CHECK(std::holds_alternative<std::monostate>(*conv.arguments[2].default_value));
  CHECK(*conv.arguments[3].default_value == DefaultValue{std::vector<int64_t>{1, 1}});
  CHECK(conv.arguments[3].default_text == "1");
  CHECK(*conv.arguments[4].default_value == DefaultValue{std::vector<int64_t>{0, 0}});
  CHECK(*conv.arguments[6].default_value == DefaultValue{int64_t{1}});

  Schema ln = parse_schema(
      "layer_norm(Tensor input, int[] normalized_shape, float eps=1e-05) "
      "-> Tensor");
  CHECK(std::get<double>(*ln.arguments[2].default_value) == Approx(1e-05));
  CHECK(ln.arguments[2].default_text == "1e-05");

  Schema gelu = parse_schema("gelu(Tensor self, *, str approximate='none') -> Tensor");
  CHECK(std::get<std::string>(*gelu.arguments[1].default_value) == "none");
  CHECK(gelu.arguments[1].default_text == "'none'");

  Schema misc = parse_schema(
      "f(int a=-1, float b=2, Scalar c=0.5, bool d=True, int[] e=[], int[3] g=[1, -2, 3], "
      "str h=\"it's\", ScalarType i=long, Device j='cuda:0', Scalar k=False) -> Tensor");
  CHECK(*misc.arguments[0].default_value == DefaultValue{int64_t{-1}});
  CHECK(*misc.arguments[1].default_value == DefaultValue{2.0});
  CHECK(*misc.arguments[2].default_value == DefaultValue{0.5});
  CHECK(*misc.arguments[3].default_value == DefaultValue{true});
  CHECK(*misc.arguments[4].default_value == DefaultValue{std::vector<int64_t>{}});
  CHECK(*misc.arguments[5].default_value == DefaultValue{std::vector<int64_t>{1, -2, 3}});
  CHECK(*misc.arguments[6].default_value == DefaultValue{std::string("it's")});
  CHECK(*misc.arguments[7].default_value == DefaultValue{std::string("long")});
  CHECK(*misc.arguments[8].default_value == DefaultValue{std::string("cuda:0")});
  CHECK(*misc.arguments[9].default_value == DefaultValue{false});

  Schema pool = parse_schema(
      "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[]) -> "
      "Tensor");
  CHECK(*pool.arguments[2].default_value == DefaultValue{std::vector<int64_t>{}});
}

TEST_CASE("keyword-only arguments may follow defaults without their own", "[schema]") {
  Schema s = parse_schema("f(Tensor self, int a=1, *, int b, Tensor(a!) out) -> Tensor(a!)");
  CHECK_FALSE(s.arguments[2].default_value);
  CHECK(s.arguments[2].kwarg_only);
  CHECK(s.str() == "f(Tensor self, int a=1, *, int b, Tensor(a!) out) -> Tensor(a!)");
}

TEST_CASE("returns: single, aliased, tuples, named and empty", "[schema]") {
  Schema max = parse_schema(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> "
      "(Tensor values, Tensor indices)");
  REQUIRE(max.returns.size() == 2);
  CHECK(max.returns[0].name == "values");
  CHECK(max.returns[1].name == "indices");

  Schema pair = parse_schema("_fused_dropout(Tensor self, float p) -> (Tensor, Tensor)");
  REQUIRE(pair.returns.size() == 2);
  CHECK(pair.returns[0].name.empty());

  Schema none = parse_schema("_assert_async(Tensor self) -> ()");
  CHECK(none.returns.empty());

  Schema scalar = parse_schema("is_nonzero(Tensor self) -> bool");
  CHECK(scalar.returns[0].type.base == BaseType::Bool);

  Schema list = parse_schema("unbind.int(Tensor(a) self, int dim=0) -> Tensor(a)[]");
  CHECK(list.returns[0].type.is_list);
  CHECK(list.returns[0].alias->set == "a");
}

TEST_CASE("whitespace variants print in canonical form", "[schema]") {
  struct Case {
    std::string input, canonical;
  };
  const std::vector<Case> cases = {
      {"  add.Tensor ( Tensor self ,Tensor other,*,Scalar alpha = 1 )->Tensor  ",
       "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"},
      {"add.out(Tensor self,Tensor other,*,Scalar alpha=1,Tensor( a ! ) out)->Tensor(a!)",
       "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"},
      {"max_pool2d(Tensor self,int [2] kernel_size,int[2] stride=[ ],int[ 2 ] padding = [0 ,0])"
       " -> ( Tensor )",
       "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=[0, 0]) -> "
       "Tensor"},
      {"\tmax.dim(Tensor self,\n  int dim,\n  bool keepdim=False)\n-> (Tensor values,Tensor "
       "indices)\n",
       "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"},
      {"sum.dim_IntList(Tensor self, int[1] ? dim, *, ScalarType ? dtype=None) -> Tensor",
       "sum.dim_IntList(Tensor self, int[1]? dim, *, ScalarType? dtype=None) -> Tensor"},
      {"myvendor :: fused_gelu (Tensor self) -> Tensor",
       "myvendor::fused_gelu(Tensor self) -> Tensor"},
      {"f()->()", "f() -> ()"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(parse_schema(c.input).str() == c.canonical);
  }
}

TEST_CASE("programmatic schemas print defaults from their values", "[schema]") {
  Argument stride{"stride", {BaseType::Int, true, 2, false},          {},
                  false,    DefaultValue{std::vector<int64_t>{1, 1}}, ""};
  CHECK(stride.str() == "int[2] stride=[1, 1]");
  CHECK(plexus::default_value_text(DefaultValue{std::monostate{}}) == "None");
  CHECK(plexus::default_value_text(DefaultValue{true}) == "True");
  CHECK(plexus::default_value_text(DefaultValue{int64_t{-3}}) == "-3");
  CHECK(plexus::default_value_text(DefaultValue{0.5}) == "0.5");
  CHECK(plexus::default_value_text(DefaultValue{std::string("none")}) == "'none'");
}

TEST_CASE("malformed schemas are rejected with the column and the reason", "[schema]") {
  const std::vector<Malformed> cases = {
      {"", 0, "empty schema"},
      {"   ", 3, "empty schema"},
      {"add.Tensor Tensor self) -> Tensor", 11, "expected '(' after the operator name"},
      {"add.Tensor", 10, "expected '(' after the operator name, found end of input"},
      {"add.Tensor(Tensor self", 22, "expected ')' or ',' after argument, found end of input"},
      {"add(Tensor self -> Tensor", 16, "expected ')' or ',' after argument, found '->'"},
      {"add(Tensor self) Tensor", 17, "expected '->' after the argument list, found 'Tensor'"},
      {"add(Tensor self)", 16, "expected '->' after the argument list, found end of input"},
      {"add(Tensr self) -> Tensor", 4, "unknown type 'Tensr'"},
      {"add(Tensor self) -> Tensr", 20, "unknown type 'Tensr'"},
      {"add(Tensor self, Tensor self) -> Tensor", 24, "duplicate argument name 'self'"},
      {"f(bool x=3) -> Tensor", 9, "default 3 does not match type bool: expected True or False"},
      {"f(int x='a') -> Tensor", 8, "default 'a' does not match type int: expected an integer"},
      {"f(float x='a') -> Tensor", 10, "does not match type float: expected a number"},
      {"f(str x=1) -> Tensor", 8, "does not match type str: expected a quoted string"},
      {"f(ScalarType x='float') -> Tensor", 15, "expected a dtype name"},
      {"f(Tensor x=0) -> Tensor", 11, "a Tensor argument can only default to None"},
      {"f(Tensor? x=1) -> Tensor", 12, "a Tensor? argument can only default to None"},
      {"f(int x=None) -> Tensor", 8, "default None needs an optional type ('int?')"},
      {"f(Tensor a, int b=1, int c) -> Tensor", 21,
       "positional argument 'c' has no default but follows argument 'b'"},
      {"f(Tensor a, *, int b, *, int c) -> Tensor", 22, "'*' may appear only once"},
      {"f(Tensor a, *) -> Tensor", 12, "'*' must be followed by keyword-only arguments"},
      {"f(Tensor a) -> Tensor junk", 22, "unexpected 'junk' after the returns"},
      {"f(Tensor a) -> Tensor)", 21, "unexpected ')' after the returns"},
      {"f(Tensor a) -> (Tensor x) y", 26, "unexpected 'y' after the returns"},
      {"1f(Tensor a) -> Tensor", 0, "expected an operator name, found '1f'"},
      {"f.(Tensor a) -> Tensor", 2, "expected an overload name after '.'"},
      {"f(Tensor 1a) -> Tensor", 9, "expected an argument name, found '1a'"},
      {"f(Tensor a-b) -> Tensor", 10, "expected ')' or ',' after argument, found '-'"},
      {"f(Tensor a,) -> Tensor", 11, "expected a type, found ')'"},
      {"f(str s='abc) -> Tensor", 8, "unterminated string literal"},
      {"f(str s=\"abc) -> Tensor", 8, "unterminated string literal"},
      {"f(int[0] x) -> Tensor", 6, "list size must be positive, got 0"},
      {"f(int[-2] x) -> Tensor", 6, "list size must be positive, got -2"},
      {"f(int[x] y) -> Tensor", 6, "expected a list size or ']'"},
      {"f(int[2 y) -> Tensor", 8, "expected ']' after the list size"},
      {"f(int?? x) -> Tensor", 6, "'?' given twice"},
      {"f(int[1]?? x) -> Tensor", 9, "'?' given twice"},
      {"f(Tensor?[] x) -> Tensor", 9, "lists of optional elements"},
      {"f(int[][] x) -> Tensor", 7, "nested lists are not supported"},
      {"a:b(Tensor x) -> Tensor", 1, "expected '::' after namespace 'a'"},
      {"::b(Tensor x) -> Tensor", 0, "expected an operator name, found '::'"},
      {"a::(Tensor x) -> Tensor", 3, "expected an operator name after '::'"},
      {"a::b::c(Tensor x) -> Tensor", 4, "expected '(' after the operator name, found '::'"},
      {"f(int(a) x) -> Tensor", 5, "alias annotations are only allowed on Tensor, not int"},
      {"f(Tensor(a x) -> Tensor", 11, "')' to close the alias annotation"},
      {"f(Tensor(!) x) -> Tensor", 9, "expected an alias set name"},
      {"f(int[2] x=[1, 2, 3]) -> Tensor", 11, "list default has 3 elements but type int[2] has 2"},
      {"f(int[] x=1) -> Tensor", 10, "a single value default needs a fixed-size list"},
      {"f(int[2] x=[1, 'a']) -> Tensor", 15, "list default element 'a' does not match type"},
      {"f(float[] x=[1]) -> Tensor", 12, "defaults for float[] are not supported"},
      {"f(int x=[1]) -> Tensor", 8, "default [1] does not match type int"},
      {"f(int x=) -> Tensor", 8, "expected a default value after '=', found ')'"},
      {"f(float x=1.0.0) -> Tensor", 13, "expected ')' or ',' after argument, found '.'"},
      {"f(float x=1e) -> Tensor", 12, "expected exponent digits"},
      {"f(int x=-) -> Tensor", 9, "expected a digit"},
      {"f(int x=99999999999999999999) -> Tensor", 8, "out of range"},
      {"f(int[2] x=[1, [2]]) -> Tensor", 15, "nested lists are not allowed in defaults"},
      {"f(Tensor a) -> (Tensor x, Tensor x)", 26, "duplicate return name 'x'"},
      {"f(Tensor a) -> (Tensor, )", 24, "expected a type, found ')'"},
      {"f(Tensor a) -> (Tensor Tensor", 29, "expected ')' or ',' after return"},
      {"f(Tensor a) ->", 14, "expected a type, found end of input"},
  };
  for (const Malformed& c : cases) {
    INFO("schema: " << c.text);
    std::string message = parse_error(c.text);
    CHECK_THAT(message, Catch::Contains(c.reason));
    CHECK_THAT(message, Catch::Contains("column " + std::to_string(c.column) + ":"));
  }
}

TEST_CASE("error messages quote the schema and point a caret at the column", "[schema]") {
  std::string message = parse_error("add.Tensor(Tensor self");
  CHECK(message ==
        "schema 'add.Tensor(Tensor self' column 22: expected ')' or ',' after argument, found "
        "end of input\n"
        "  add.Tensor(Tensor self\n"
        "                        ^");
  REQUIRE_THROWS_WITH(parse_schema("f(Tensr x) -> Tensor"),
                      Catch::Contains("unknown type 'Tensr'"));
  REQUIRE_THROWS_AS(parse_schema("f(int?? x) -> Tensor"), plexus::Error);
}
