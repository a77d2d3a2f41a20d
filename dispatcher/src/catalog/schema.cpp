// Schema parsing and printing. The parser is a hand-written recursive descent
// over the text; every error names the 0-based column and shows a caret under it.
#include "plexus/schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "plexus/error.h"

namespace plexus {

namespace {

// Spellings of BaseType, indexed by its value.
constexpr std::array<std::string_view, 8> kBaseTypeNames = {
    "Tensor", "Scalar", "int", "float", "bool", "str", "ScalarType", "Device"};

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Quotes a string for schema text, escaping quotes and backslashes.
std::string quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// Type text with the alias annotation between base and list suffix: "Tensor(a!)[]".
std::string type_text(const SchemaType& t, const std::optional<AliasInfo>& alias) {
  std::string out(base_type_name(t.base));
  if (alias) out += "(" + alias->str() + ")";
  if (t.is_list) out += t.list_size ? fmt::format("[{}]", *t.list_size) : "[]";
  if (t.optional) out += "?";
  return out;
}

// A default value as written, before it is checked against the argument's type.
struct Literal {
  enum class Kind { None, Bool, Int, Float, Str, Ident, List } kind = Kind::None;
  size_t column = 0;           // where it starts in the schema text
  std::string text;            // canonical source text ("[0, 0]" for lists)
  bool b = false;              // Kind::Bool
  int64_t i = 0;               // Kind::Int
  double d = 0;                // Kind::Float
  std::string s;               // Kind::Str (unescaped) and Kind::Ident
  std::vector<Literal> items;  // Kind::List
};

// Recursive-descent parser over one schema text; throws on the first error.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  // Parses the whole text into a Schema.
  Schema parse();

 private:
  [[noreturn]] void fail_at(size_t column, std::string_view reason) const;
  [[noreturn]] void fail_expected(std::string_view what) const;
  void skip_ws();
  bool at_end();
  char peek();
  bool accept(std::string_view token);
  void expect(std::string_view token, std::string_view what);
  std::string found() const;
  std::string identifier(std::string_view what);

  void parse_name(Schema& s);
  void parse_arguments(Schema& s);
  Argument parse_argument(size_t& name_col);
  void check_argument(const Schema& s, const Argument& a, size_t start, size_t name_col) const;
  void parse_returns(Schema& s);
  Return parse_return(bool allow_name);
  SchemaType parse_type(std::optional<AliasInfo>& alias);
  AliasInfo parse_alias();
  void parse_type_suffixes(SchemaType& t);

  Literal parse_literal();
  Literal parse_list_literal();
  Literal parse_number();
  Literal parse_string();
  DefaultValue convert_default(const Literal& lit, const SchemaType& t) const;
  DefaultValue convert_list_default(const Literal& lit, const SchemaType& t) const;
  DefaultValue convert_scalar_default(const Literal& lit, const SchemaType& t) const;

  std::string_view text_;
  size_t pos_ = 0;
};

void Parser::fail_at(size_t column, std::string_view reason) const {
  std::string shown(text_);
  std::replace_if(
      shown.begin(), shown.end(), [](char c) { return c == '\n' || c == '\t' || c == '\r'; }, ' ');
  fail(ErrorCode::InvalidArgument, "schema '{}' column {}: {}\n  {}\n  {}^", shown, column, reason,
       shown, std::string(column, ' '));
}

void Parser::fail_expected(std::string_view what) const {
  fail_at(pos_, fmt::format("expected {}, found {}", what, found()));
}

void Parser::skip_ws() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
    ++pos_;
}

bool Parser::at_end() {
  skip_ws();
  return pos_ >= text_.size();
}

char Parser::peek() {
  return at_end() ? '\0' : text_[pos_];
}

bool Parser::accept(std::string_view token) {
  skip_ws();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

void Parser::expect(std::string_view token, std::string_view what) {
  if (!accept(token)) fail_expected(what);
}

// Describes the token at the current position for error messages.
std::string Parser::found() const {
  if (pos_ >= text_.size()) return "end of input";
  size_t end = pos_;
  while (end < text_.size() && is_ident_char(text_[end])) ++end;
  if (end > pos_) return fmt::format("'{}'", text_.substr(pos_, end - pos_));
  for (std::string_view two : {"->", "::"})
    if (text_.substr(pos_, 2) == two) return fmt::format("'{}'", two);
  return fmt::format("'{}'", text_[pos_]);
}

std::string Parser::identifier(std::string_view what) {
  skip_ws();
  if (pos_ >= text_.size() || !is_ident_start(text_[pos_])) fail_expected(what);
  size_t start = pos_;
  while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

Schema Parser::parse() {
  if (at_end()) fail_at(pos_, "empty schema");
  Schema s;
  parse_name(s);
  parse_arguments(s);
  expect("->", "'->' after the argument list");
  parse_returns(s);
  if (!at_end()) fail_at(pos_, fmt::format("unexpected {} after the returns", found()));
  return s;
}

void Parser::parse_name(Schema& s) {
  std::string first = identifier("an operator name");
  if (accept("::")) {
    s.ns = std::move(first);
    s.name = identifier("an operator name after '::'");
  } else if (peek() == ':') {
    fail_at(pos_, fmt::format("expected '::' after namespace '{}', found {}", first, found()));
  } else {
    s.name = std::move(first);
  }
  if (accept(".")) s.overload = identifier("an overload name after '.'");
}

void Parser::parse_arguments(Schema& s) {
  expect("(", "'(' after the operator name");
  if (accept(")")) return;
  bool kwarg_only = false;
  bool dangling_star = false;  // a '*' not yet followed by an argument
  size_t star_col = 0;         // where the '*' is
  while (true) {
    skip_ws();
    size_t start = pos_;
    if (accept("*")) {
      if (kwarg_only) fail_at(start, "'*' may appear only once");
      kwarg_only = true;
      dangling_star = true;
      star_col = start;
    } else {
      size_t name_col = 0;
      Argument a = parse_argument(name_col);
      a.kwarg_only = kwarg_only;
      check_argument(s, a, start, name_col);
      dangling_star = false;
      s.arguments.push_back(std::move(a));
    }
    if (accept(")")) break;
    if (!accept(",")) fail_expected("')' or ',' after argument");
  }
  if (dangling_star) fail_at(star_col, "'*' must be followed by keyword-only arguments");
}

// Parses "type name[=default]"; `name_col` receives the column of the name.
Argument Parser::parse_argument(size_t& name_col) {
  Argument a;
  a.type = parse_type(a.alias);
  skip_ws();
  name_col = pos_;
  a.name = identifier("an argument name");
  if (accept("=")) {
    Literal lit = parse_literal();
    a.default_value = convert_default(lit, a.type);
    a.default_text = lit.text;
  }
  return a;
}

// Checks `a` against the arguments already in `s`: unique name, default ordering.
void Parser::check_argument(const Schema& s, const Argument& a, size_t start,
                            size_t name_col) const {
  if (s.argument_index(a.name) >= 0)
    fail_at(name_col, fmt::format("duplicate argument name '{}'", a.name));
  if (a.kwarg_only || a.default_value) return;
  for (const Argument& prev : s.arguments)
    if (!prev.kwarg_only && prev.default_value)
      fail_at(start, fmt::format("positional argument '{}' has no default but follows "
                                 "argument '{}' which has one",
                                 a.name, prev.name));
}

void Parser::parse_returns(Schema& s) {
  skip_ws();
  if (!accept("(")) {
    s.returns.push_back(parse_return(false));
    return;
  }
  if (accept(")")) return;
  while (true) {
    skip_ws();
    size_t name_col = pos_;
    Return r = parse_return(true);
    for (const Return& prev : s.returns)
      if (!r.name.empty() && prev.name == r.name)
        fail_at(name_col, fmt::format("duplicate return name '{}'", r.name));
    s.returns.push_back(std::move(r));
    if (accept(")")) break;
    if (!accept(",")) fail_expected("')' or ',' after return");
  }
}

Return Parser::parse_return(bool allow_name) {
  Return r;
  r.type = parse_type(r.alias);
  skip_ws();
  if (allow_name && pos_ < text_.size() && is_ident_start(text_[pos_]))
    r.name = identifier("a return name");
  return r;
}

SchemaType Parser::parse_type(std::optional<AliasInfo>& alias) {
  skip_ws();
  size_t start = pos_;
  std::string name = identifier("a type");
  std::optional<BaseType> base = base_type_from_name(name);
  if (!base)
    fail_at(start, fmt::format("unknown type '{}' (known: Tensor, Scalar, int, float, bool, str, "
                               "ScalarType, Device)",
                               name));
  SchemaType t;
  t.base = *base;
  skip_ws();
  size_t paren_col = pos_;
  if (accept("(")) {
    if (t.base != BaseType::Tensor)
      fail_at(paren_col, fmt::format("alias annotations are only allowed on Tensor, not {}", name));
    alias = parse_alias();
  }
  parse_type_suffixes(t);
  return t;
}

// Parses the inside of an alias annotation after '(': "a)" or "a!)".
AliasInfo Parser::parse_alias() {
  AliasInfo a;
  a.set = identifier("an alias set name such as 'a'");
  a.is_write = accept("!");
  expect(")", "')' to close the alias annotation");
  return a;
}

// Parses "[]", "[N]" and "?" after the base type and alias.
void Parser::parse_type_suffixes(SchemaType& t) {
  if (accept("[")) {
    t.is_list = true;
    skip_ws();
    size_t size_col = pos_;
    if (!accept("]")) {
      if (peek() != '-' && !is_digit(peek())) fail_expected("a list size or ']'");
      Literal n = parse_number();
      if (n.kind != Literal::Kind::Int) fail_at(size_col, "list size must be an integer");
      if (n.i <= 0 || n.i > 1'000'000)
        fail_at(size_col, fmt::format("list size must be positive, got {}", n.text));
      t.list_size = static_cast<int>(n.i);
      expect("]", "']' after the list size");
    }
  }
  skip_ws();
  size_t col = pos_;
  if (accept("[")) fail_at(col, "nested lists are not supported");
  if (accept("?")) t.optional = true;
  skip_ws();
  col = pos_;
  if (accept("?")) fail_at(col, "'?' given twice");
  if (accept("["))
    fail_at(col, "lists of optional elements (such as 'Tensor?[]') are not supported");
}

Literal Parser::parse_literal() {
  char c = peek();
  if (c == '[') return parse_list_literal();
  if (c == '\'' || c == '"') return parse_string();
  if (c == '-' || is_digit(c)) return parse_number();
  if (!is_ident_start(c)) fail_expected("a default value after '='");
  Literal lit;
  lit.column = pos_;
  lit.text = identifier("a default value");
  if (lit.text == "None") {
    lit.kind = Literal::Kind::None;
  } else if (lit.text == "True" || lit.text == "False") {
    lit.kind = Literal::Kind::Bool;
    lit.b = lit.text == "True";
  } else {
    lit.kind = Literal::Kind::Ident;
    lit.s = lit.text;
  }
  return lit;
}

// Parses "[a, b, ...]"; elements are scalar literals, kept for the type check.
Literal Parser::parse_list_literal() {
  Literal lit;
  lit.kind = Literal::Kind::List;
  lit.column = pos_;
  expect("[", "'['");
  lit.text = "[";
  if (!accept("]")) {
    while (true) {
      if (peek() == '[') fail_at(pos_, "nested lists are not allowed in defaults");
      Literal item = parse_literal();
      lit.text += (lit.items.empty() ? "" : ", ") + item.text;
      lit.items.push_back(std::move(item));
      if (accept("]")) break;
      if (!accept(",")) fail_expected("',' or ']' in list default");
    }
  }
  lit.text += "]";
  return lit;
}

// Parses "-12", "0.5", "1e-05", "2.": integers when there is no '.' or exponent.
Literal Parser::parse_number() {
  skip_ws();
  Literal lit;
  lit.column = pos_;
  size_t end = pos_;
  if (end < text_.size() && text_[end] == '-') ++end;
  if (end >= text_.size() || !is_digit(text_[end])) fail_at(end, "expected a digit");
  while (end < text_.size() && is_digit(text_[end])) ++end;
  bool is_float = false;
  if (end < text_.size() && text_[end] == '.') {
    is_float = true;
    ++end;
    while (end < text_.size() && is_digit(text_[end])) ++end;
  }
  if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
    is_float = true;
    ++end;
    if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
    if (end >= text_.size() || !is_digit(text_[end])) fail_at(end, "expected exponent digits");
    while (end < text_.size() && is_digit(text_[end])) ++end;
  }
  lit.text = std::string(text_.substr(pos_, end - pos_));
  const char* first = lit.text.data();
  const char* last = first + lit.text.size();
  auto result =
      is_float ? std::from_chars(first, last, lit.d) : std::from_chars(first, last, lit.i);
  if (result.ec != std::errc() || result.ptr != last)
    fail_at(pos_, fmt::format("number '{}' is out of range", lit.text));
  lit.kind = is_float ? Literal::Kind::Float : Literal::Kind::Int;
  pos_ = end;
  return lit;
}

// Parses a single- or double-quoted string; backslash escapes the next character.
Literal Parser::parse_string() {
  skip_ws();
  Literal lit;
  lit.kind = Literal::Kind::Str;
  lit.column = pos_;
  char q = text_[pos_];
  size_t end = pos_ + 1;
  while (true) {
    if (end >= text_.size()) fail_at(lit.column, "unterminated string literal");
    char c = text_[end++];
    if (c == q) break;
    if (c == '\\') {
      if (end >= text_.size()) fail_at(lit.column, "unterminated string literal");
      c = text_[end++];
      if (c == 'n') c = '\n';
      if (c == 't') c = '\t';
    }
    lit.s += c;
  }
  lit.text = std::string(text_.substr(pos_, end - pos_));
  pos_ = end;
  return lit;
}

DefaultValue Parser::convert_default(const Literal& lit, const SchemaType& t) const {
  if (lit.kind == Literal::Kind::None) {
    if (!t.optional)
      fail_at(lit.column, fmt::format("default None needs an optional type ('{}?')", t.str()));
    return std::monostate{};
  }
  if (t.base == BaseType::Tensor)
    fail_at(lit.column,
            fmt::format("a {} argument can only default to None, got {}", t.str(), lit.text));
  if (t.is_list) return convert_list_default(lit, t);
  return convert_scalar_default(lit, t);
}

// int lists take "[...]" of integers, or one integer for a fixed size "int[N]".
DefaultValue Parser::convert_list_default(const Literal& lit, const SchemaType& t) const {
  if (t.base != BaseType::Int)
    fail_at(lit.column,
            fmt::format("defaults for {} are not supported (only int lists and None)", t.str()));
  if (lit.kind == Literal::Kind::Int) {
    if (!t.list_size)
      fail_at(lit.column, fmt::format("a single value default needs a fixed-size list such as "
                                      "int[2], not {}",
                                      t.str()));
    return std::vector<int64_t>(static_cast<size_t>(*t.list_size), lit.i);
  }
  if (lit.kind != Literal::Kind::List)
    fail_at(lit.column, fmt::format("default {} does not match type {}: expected a list of "
                                    "integers",
                                    lit.text, t.str()));
  std::vector<int64_t> values;
  for (const Literal& item : lit.items) {
    if (item.kind != Literal::Kind::Int)
      fail_at(item.column, fmt::format("list default element {} does not match type {}: "
                                       "expected an integer",
                                       item.text, t.str()));
    values.push_back(item.i);
  }
  if (t.list_size && !values.empty() && values.size() != static_cast<size_t>(*t.list_size))
    fail_at(lit.column, fmt::format("list default has {} elements but type {} has {}",
                                    values.size(), t.str(), *t.list_size));
  return values;
}

DefaultValue Parser::convert_scalar_default(const Literal& lit, const SchemaType& t) const {
  using K = Literal::Kind;
  const char* want = "";
  switch (t.base) {
    case BaseType::Bool:
      if (lit.kind == K::Bool) return lit.b;
      want = "True or False";
      break;
    case BaseType::Int:
      if (lit.kind == K::Int) return lit.i;
      want = "an integer";
      break;
    case BaseType::Float:
      if (lit.kind == K::Float) return lit.d;
      if (lit.kind == K::Int) return static_cast<double>(lit.i);
      want = "a number";
      break;
    case BaseType::Scalar:
      if (lit.kind == K::Int) return lit.i;
      if (lit.kind == K::Float) return lit.d;
      if (lit.kind == K::Bool) return lit.b;
      want = "a number or True/False";
      break;
    case BaseType::Str:
    case BaseType::Device:
      if (lit.kind == K::Str) return lit.s;
      want = "a quoted string";
      break;
    case BaseType::ScalarType:
      if (lit.kind == K::Ident) return lit.s;
      want = "a dtype name such as float";
      break;
    case BaseType::Tensor:
      break;
  }
  fail_at(lit.column,
          fmt::format("default {} does not match type {}: expected {}", lit.text, t.str(), want));
}

}  // namespace

std::string_view base_type_name(BaseType t) {
  return kBaseTypeNames[static_cast<size_t>(t)];
}

std::optional<BaseType> base_type_from_name(std::string_view name) {
  for (size_t i = 0; i < kBaseTypeNames.size(); ++i)
    if (kBaseTypeNames[i] == name) return static_cast<BaseType>(i);
  return std::nullopt;
}

std::string SchemaType::str() const {
  return type_text(*this, std::nullopt);
}

std::string AliasInfo::str() const {
  return is_write ? set + "!" : set;
}

std::string default_value_text(const DefaultValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return fmt::format("{}", d); }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(const std::vector<int64_t>& l) const {
      return fmt::format("[{}]", fmt::join(l, ", "));
    }
  };
  return std::visit(Visitor{}, v);
}

std::string Argument::str() const {
  std::string out = type_text(type, alias) + " " + name;
  if (!default_text.empty())
    out += "=" + default_text;
  else if (default_value)
    out += "=" + default_value_text(*default_value);
  return out;
}

std::string Return::str() const {
  std::string out = type_text(type, alias);
  return name.empty() ? out : out + " " + name;
}

std::string Schema::full_name() const {
  std::string out = ns.empty() ? name : ns + "::" + name;
  return overload.empty() ? out : out + "." + overload;
}

std::string Schema::str() const {
  std::string out = full_name() + "(";
  bool star_written = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !star_written) {
      out += "*, ";
      star_written = true;
    }
    out += arguments[i].str();
  }
  out += ") -> ";
  bool bare = returns.size() == 1 && returns[0].name.empty();
  if (bare) return out + returns[0].str();
  out += "(";
  for (size_t i = 0; i < returns.size(); ++i) out += (i > 0 ? ", " : "") + returns[i].str();
  return out + ")";
}

bool Schema::is_out() const {
  return std::any_of(arguments.begin(), arguments.end(), [](const Argument& a) {
    return a.kwarg_only && a.type.base == BaseType::Tensor && a.alias && a.alias->is_write;
  });
}

bool Schema::is_inplace() const {
  if (name.empty() || name.back() != '_' || arguments.empty()) return false;
  const Argument& first = arguments.front();
  return first.name == "self" && first.alias && first.alias->is_write;
}

int Schema::argument_index(std::string_view arg_name) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == arg_name) return static_cast<int>(i);
  return -1;
}

Schema parse_schema(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace plexus
