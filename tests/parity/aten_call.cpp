// Calling aten ops by schema name with a conformance case's arguments (see
// aten_call.h).
#include "parity/aten_call.h"

#include <cstring>
#include <stdexcept>

namespace plexus::parity {

namespace conf = conformance;

namespace {

// Where aten spells a plexus op otherwise: its name there, and aten's names
// of arguments plexus names differently (aten name, plexus name). The
// gradient ops are aten's internal ones, which autograd calls with
// contiguous tensors of one shape: they get them so (see aten_internal).
struct Spelling {
  const char* plexus;
  const char* aten;
  std::vector<std::pair<std::string, std::string>> renamed;
  bool internal = true;
};
const std::vector<Spelling>& spellings() {
  static const std::vector<Spelling> table = {
      {"threshold_backward", "threshold_backward", {}},
      {"sigmoid_backward", "sigmoid_backward", {}},
      {"tanh_backward", "tanh_backward", {}},
      {"silu_backward", "silu_backward", {}},
      {"gelu_backward", "gelu_backward", {}},
      {"mse_loss_backward", "mse_loss_backward", {}},
      {"threshold_backward.out", "threshold_backward.grad_input", {}},
      {"sigmoid_backward.out", "sigmoid_backward.grad_input", {}},
      {"tanh_backward.out", "tanh_backward.grad_input", {}},
      {"silu_backward.out", "silu_backward.grad_input", {}},
      {"gelu_backward.out", "gelu_backward.grad_input", {}},
      {"mse_loss_backward.out", "mse_loss_backward.grad_input", {}},
      {"embedding_backward", "embedding_backward", {{"grad", "grad_output"}}, false},
      {"softmax_backward", "_softmax_backward_data", {}},
      {"softmax_backward.out", "_softmax_backward_data.out", {{"grad_input", "out"}}},
      {"log_softmax_backward", "_log_softmax_backward_data", {}},
      {"log_softmax_backward.out", "_log_softmax_backward_data.out", {{"grad_input", "out"}}},
  };
  return table;
}

const Spelling* spelling_of(const std::string& plexus_name) {
  for (const Spelling& s : spellings())
    if (plexus_name == s.plexus) return &s;
  return nullptr;
}

// plexus's name for aten argument `name` of plexus op `op`.
std::string plexus_arg(const std::string& op, const std::string& name) {
  if (const Spelling* s = spelling_of(op))
    for (const auto& [aten, plexus] : s->renamed)
      if (aten == name) return plexus;
  return name;
}

}  // namespace

bool aten_internal(const std::string& plexus_name) {
  const Spelling* s = spelling_of(plexus_name);
  return s && s->internal;
}

std::optional<c10::OperatorHandle> find_aten(const std::string& plexus_name) {
  const Spelling* s = spelling_of(plexus_name);
  const std::string name = s ? s->aten : plexus_name;
  const size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : name.substr(dot + 1);
  auto op = c10::Dispatcher::singleton().findSchema({"aten::" + base, overload});
  if (!op) return std::nullopt;
  return *op;
}

namespace {
struct DTypePair {
  DType plexus;
  c10::ScalarType torch;
};
constexpr DTypePair kDTypes[] = {
    {DType::Bool, c10::kBool},     {DType::U8, c10::kByte},       {DType::I8, c10::kChar},
    {DType::I16, c10::kShort},     {DType::I32, c10::kInt},       {DType::I64, c10::kLong},
    {DType::F16, c10::kHalf},      {DType::BF16, c10::kBFloat16}, {DType::F32, c10::kFloat},
    {DType::F64, c10::kDouble},
};
}  // namespace

c10::ScalarType torch_dtype(DType t) {
  for (const DTypePair& p : kDTypes)
    if (p.plexus == t) return p.torch;
  throw std::logic_error("no torch dtype for a plexus dtype");
}

std::optional<DType> plexus_dtype(c10::ScalarType t) {
  for (const DTypePair& p : kDTypes)
    if (p.torch == t) return p.plexus;
  return std::nullopt;
}

torch::Tensor torch_view(const conf::Placed& p) {
  const Tensor& v = p.view;
  const int64_t n = static_cast<int64_t>(p.bytes.size() / v.itemsize());
  torch::Tensor storage = torch::empty({n}, torch::dtype(torch_dtype(v.dtype())));
  if (!p.bytes.empty()) std::memcpy(storage.data_ptr(), p.bytes.data(), p.bytes.size());
  std::vector<int64_t> sizes(v.sizes().begin(), v.sizes().end());
  std::vector<int64_t> strides(v.strides().begin(), v.strides().end());
  return storage.as_strided(sizes, strides, v.storage_offset());
}

ref::Tensor ref_values(const torch::Tensor& t) {
  std::optional<DType> dt = plexus_dtype(t.scalar_type());
  if (!dt) throw std::runtime_error(std::string("libtorch returned dtype ") + c10::toString(t.scalar_type()));
  ref::Tensor out(*dt, ref::Sizes(t.sizes().begin(), t.sizes().end()));
  if (is_floating(*dt)) {
    torch::Tensor c = t.to(torch::kFloat64).contiguous();
    for (int64_t k = 0; k < c.numel(); ++k) out.set_float(k, c.data_ptr<double>()[k]);
  } else {
    torch::Tensor c = t.to(torch::kInt64).contiguous();
    for (int64_t k = 0; k < c.numel(); ++k) out.set_int(k, c.data_ptr<int64_t>()[k]);
  }
  return out;
}

TorchTensors torch_tensors(const conf::Case& c, conf::PreparedCall& call, const std::string& variant) {
  TorchTensors t;
  for (auto& [name, p] : call.placed) t.tensors[name] = torch_view(p);
  for (const auto& [name, a] : c.args)
    if (auto* ta = std::get_if<conf::TensorArg>(&a); ta && !ta->alias.empty())
      t.tensors[name] = t.tensors.at(ta->alias);
  for (auto& [name, ps] : call.placed_lists)
    for (const conf::Placed& p : ps) t.lists[name].push_back(torch_view(p));
  t.written = call.written_name;
  if (variant == "out") t.out = torch_view(*call.out);
  else if (variant == "out_self" || variant == "out_other") t.out = t.tensors.at(call.written_name);
  return t;
}

namespace {

// The element type of an aten argument type, looking through Optional.
c10::TypePtr element(const c10::TypePtr& type) {
  if (auto o = type->cast<c10::OptionalType>()) return o->getElementType();
  return type;
}
bool is_list(const c10::TypePtr& type) { return element(type)->kind() == c10::TypeKind::ListType; }

c10::IValue number(const c10::TypePtr& type, const Scalar& s, int list_size) {
  const c10::TypeKind k = element(type)->kind();
  if (is_list(type)) return c10::IValue(std::vector<int64_t>(static_cast<size_t>(list_size), s.to_int()));
  if (k == c10::TypeKind::NumberType) {
    if (s.is_bool()) return c10::IValue(c10::Scalar(s.to_bool()));
    return s.is_floating() ? c10::IValue(c10::Scalar(s.to_double())) : c10::IValue(c10::Scalar(s.to_int()));
  }
  if (k == c10::TypeKind::FloatType) return c10::IValue(s.to_double());
  if (k == c10::TypeKind::BoolType) return c10::IValue(s.to_bool());
  return c10::IValue(s.to_int());
}

// Case argument `a` as a value of aten argument type `type`.
c10::IValue convert(const std::string& name, const conf::Arg& a, const c10::TypePtr& type,
                    int list_size, const TorchTensors& t) {
  if (std::holds_alternative<conf::NoneArg>(a)) return c10::IValue();
  if (std::holds_alternative<conf::TensorArg>(a)) return t.tensors.at(name);
  if (std::holds_alternative<std::vector<conf::TensorArg>>(a)) {
    c10::List<at::Tensor> list;
    for (const torch::Tensor& x : t.lists.count(name) ? t.lists.at(name) : std::vector<torch::Tensor>{})
      list.push_back(x);
    return list;
  }
  if (auto* s = std::get_if<Scalar>(&a)) return number(type, *s, list_size);
  if (auto* i = std::get_if<int64_t>(&a)) return number(type, Scalar(*i), list_size);
  if (auto* d = std::get_if<double>(&a)) return number(type, Scalar(*d), list_size);
  if (auto* b = std::get_if<bool>(&a)) return number(type, Scalar(*b), list_size);
  if (auto* l = std::get_if<std::vector<int64_t>>(&a)) return c10::IValue(*l);
  if (auto* s = std::get_if<std::string>(&a)) return c10::IValue(*s);
  if (auto* dt = std::get_if<DType>(&a)) return c10::IValue(torch_dtype(*dt));
  throw std::logic_error("an argument kind the parity test does not convert");
}

}  // namespace

namespace {

// A value for aten argument `arg` that the case does not give and aten has no
// default for: plexus's default, or what aten needs beyond plexus's schema.
c10::IValue filler(const c10::Argument& arg, const Argument* pa, const TorchTensors& t,
                   const c10::FunctionSchema& schema) {
  if (pa && pa->default_value) {
    const DefaultValue& d = *pa->default_value;
    if (auto* b = std::get_if<bool>(&d)) return c10::IValue(*b);
    if (auto* i = std::get_if<int64_t>(&d)) return c10::IValue(*i);
    if (auto* x = std::get_if<double>(&d)) return c10::IValue(*x);
    if (std::holds_alternative<std::monostate>(d)) return c10::IValue();
  }
  if (arg.name() == "sparse") return c10::IValue(false);  // embedding_backward: dense
  if (arg.name() == "input_dtype" && t.tensors.count("output"))  // softmax's gradient
    return c10::IValue(t.tensors.at("output").scalar_type());
  throw std::runtime_error("no value for aten argument '" + arg.name() + "' of " + schema.name());
}

}  // namespace

torch::jit::Stack aten_stack(const c10::FunctionSchema& schema, const Schema& ps,
                             const conf::Case& c, const TorchTensors& t) {
  torch::jit::Stack stack;
  for (const c10::Argument& arg : schema.arguments()) {
    if (arg.alias_info() && arg.alias_info()->isWrite() && arg.kwarg_only()) {
      stack.emplace_back(t.out);  // the out of an out form
      continue;
    }
    const std::string name = plexus_arg(ps.full_name(), arg.name());
    const conf::Arg* given = nullptr;
    for (const auto& [n, a] : c.args)
      if (n == name) given = &a;
    const Argument* pa = nullptr;
    for (const Argument& x : ps.arguments)
      if (x.name == name) pa = &x;
    const int list_size = pa && pa->type.list_size ? *pa->type.list_size : 1;
    if (given) stack.push_back(convert(name, *given, arg.type(), list_size, t));
    else if (arg.default_value()) stack.push_back(*arg.default_value());
    else stack.push_back(filler(arg, pa, t, schema));
  }
  return stack;
}

}  // namespace plexus::parity
