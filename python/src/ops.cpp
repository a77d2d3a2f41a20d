// Every catalog op from Python: arguments are converted by the op's schema,
// overloads are tried in order (first without turning Python numbers into
// tensors, then with), and the call runs through the dispatcher, so autograd,
// graph capture and the profiler see Python's calls as they see C++'s.
#include "bindings.h"

#include <fmt/format.h>

#include <deque>
#include <map>

#include "plexus/dispatcher.h"
#include "plexus/factories.h"

namespace plexus::python {
namespace {

// What the boxed arguments of one call borrow.
struct Keep {
  std::deque<Tensor> tensors;
  std::deque<std::vector<Tensor>> lists;
  std::deque<std::vector<int64_t>> ints;
  std::deque<std::string> strings;
};

// Converts o for argument a; false when it does not fit (the next overload may).
bool convert(py::handle o, const Argument& a, bool numbers_as_tensors, Keep& keep, Value& out) {
  const SchemaType& t = a.type;
  if (o.is_none()) {
    if (!t.optional) return false;
    out = Value();
    return true;
  }
  if (t.is_list) {
    if (t.base == BaseType::Int) {
      std::vector<int64_t> v;
      if (py::isinstance<py::int_>(o) && !py::isinstance<py::bool_>(o)) {
        v.assign(t.list_size ? static_cast<size_t>(*t.list_size) : 1, o.cast<int64_t>());
      } else if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
        for (py::handle e : o) {
          if (!py::isinstance<py::int_>(e) || py::isinstance<py::bool_>(e)) return false;
          v.push_back(e.cast<int64_t>());
        }
      } else {
        return false;
      }
      out = Value::int_list(keep.ints.emplace_back(std::move(v)));
      return true;
    }
    if (t.base == BaseType::Tensor) {
      if (!py::isinstance<py::list>(o) && !py::isinstance<py::tuple>(o)) return false;
      std::vector<Tensor> v;
      for (py::handle e : o) {
        if (!py::isinstance<Tensor>(e)) return false;
        v.push_back(e.cast<Tensor>());
      }
      out = Value::tensor_list(keep.lists.emplace_back(std::move(v)));
      return true;
    }
    return false;
  }
  switch (t.base) {
    case BaseType::Tensor:
      if (py::isinstance<Tensor>(o)) {
        out = Value::tensor(keep.tensors.emplace_back(o.cast<Tensor>()));
        return true;
      }
      if (numbers_as_tensors && is_number(o)) {
        out = Value::tensor(keep.tensors.emplace_back(wrapped_scalar(scalar_of(o))));
        return true;
      }
      return false;
    case BaseType::Scalar:
      if (!is_number(o)) return false;
      out = Value::scalar(scalar_of(o));
      return true;
    case BaseType::Int:
      if (!py::isinstance<py::int_>(o) || py::isinstance<py::bool_>(o)) return false;
      out = Value::integer(o.cast<int64_t>());
      return true;
    case BaseType::Float:
      if (!py::isinstance<py::float_>(o) && !py::isinstance<py::int_>(o)) return false;
      out = Value::real(o.cast<double>());
      return true;
    case BaseType::Bool:
      if (!py::isinstance<py::bool_>(o)) return false;
      out = Value::boolean(o.cast<bool>());
      return true;
    case BaseType::Str:
      if (!py::isinstance<py::str>(o)) return false;
      out = Value::string(keep.strings.emplace_back(o.cast<std::string>()));
      return true;
    case BaseType::ScalarType:
      if (!py::isinstance<DType>(o)) return false;
      out = Value::dtype(o.cast<DType>());
      return true;
    case BaseType::Device:
      if (py::isinstance<py::str>(o)) {
        out = Value::device(Device::parse(o.cast<std::string>()));
        return true;
      }
      if (!py::isinstance<Device>(o)) return false;
      out = Value::device(o.cast<Device>());
      return true;
  }
  return false;
}

// The default of an argument as a Value (owned by keep).
bool default_of(const Argument& a, Keep& keep, Value& out) {
  if (!a.default_value) return false;
  const DefaultValue& d = *a.default_value;
  if (std::holds_alternative<std::monostate>(d)) {
    out = Value();
  } else if (const bool* b = std::get_if<bool>(&d)) {
    out = a.type.base == BaseType::Scalar ? Value::scalar(Scalar(*b)) : Value::boolean(*b);
  } else if (const int64_t* i = std::get_if<int64_t>(&d)) {
    if (a.type.base == BaseType::Scalar) out = Value::scalar(Scalar(*i));
    else if (a.type.base == BaseType::Float) out = Value::real(static_cast<double>(*i));
    else if (a.type.is_list)
      out = Value::int_list(keep.ints.emplace_back(
          std::vector<int64_t>(a.type.list_size ? static_cast<size_t>(*a.type.list_size) : 1, *i)));
    else out = Value::integer(*i);
  } else if (const double* f = std::get_if<double>(&d)) {
    out = a.type.base == BaseType::Scalar ? Value::scalar(Scalar(*f)) : Value::real(*f);
  } else if (const std::string* s = std::get_if<std::string>(&d)) {
    if (a.type.base == BaseType::ScalarType) {
      std::optional<DType> t = dtype_from_name(*s);
      if (!t) return false;
      out = Value::dtype(*t);
    } else if (a.type.base == BaseType::Device) {
      out = Value::device(Device::parse(*s));
    } else {
      out = Value::string(keep.strings.emplace_back(*s));
    }
  } else if (const auto* l = std::get_if<std::vector<int64_t>>(&d)) {
    out = Value::int_list(keep.ints.emplace_back(*l));
  }
  return true;
}

// Binds args/kwargs to op's schema; false (with why) when they do not fit.
bool bind(const Operator& op, py::args args, py::kwargs kwargs, bool numbers_as_tensors,
          Keep& keep, std::vector<Value>& values, std::string& why) {
  const auto& params = op.schema().arguments;
  values.assign(params.size(), Value());
  std::vector<bool> set(params.size(), false);
  size_t positional = 0;
  for (size_t i = 0; i < params.size() && !params[i].kwarg_only; ++i) ++positional;
  if (args.size() > positional) {
    why = fmt::format("{} takes {} positional arguments, got {}", op.name(), positional,
                      args.size());
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!convert(args[i], params[i], numbers_as_tensors, keep, values[i])) {
      why = fmt::format("argument '{}' of {} must be {}, got {}", params[i].name, op.name(),
                        params[i].type.str(), py::str(py::type::of(args[i])).cast<std::string>());
      return false;
    }
    set[i] = true;
  }
  for (auto [key, value] : kwargs) {
    std::string name = key.cast<std::string>();
    int i = op.schema().argument_index(name);
    if (i < 0 || params[static_cast<size_t>(i)].alias) {
      why = fmt::format("{} has no argument '{}'", op.name(), name);
      return false;
    }
    if (set[static_cast<size_t>(i)]) {
      why = fmt::format("argument '{}' of {} given twice", name, op.name());
      return false;
    }
    if (!convert(value, params[static_cast<size_t>(i)], numbers_as_tensors, keep,
                 values[static_cast<size_t>(i)])) {
      why = fmt::format("argument '{}' of {} must be {}", name, op.name(),
                        params[static_cast<size_t>(i)].type.str());
      return false;
    }
    set[static_cast<size_t>(i)] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (set[i]) continue;
    if (!params[i].default_value && params[i].type.optional) {  // sum(x): dim=None
      values[i] = Value();
      continue;
    }
    if (!default_of(params[i], keep, values[i])) {
      why = fmt::format("{} needs argument '{}'", op.name(), params[i].name);
      return false;
    }
  }
  return true;
}

// The overloads of each Python name, in catalog order: "add" -> add.Tensor
// (and vendors' ops by their full name, "myvendor::fused_gelu").
const std::map<std::string, std::vector<const Operator*>>& overloads() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, std::vector<const Operator*>>;
    for (const Operator* op : Dispatcher::get().ops()) {
      if (op->kind() == OpKind::Out) continue;
      const Schema& s = op->schema();
      std::string name = s.ns.empty() ? s.name : s.ns + "::" + s.name;
      (*t)[name].push_back(op);
    }
    return t;
  }();
  return *table;
}

}  // namespace

bool is_number(py::handle o) {
  return py::isinstance<py::bool_>(o) || py::isinstance<py::int_>(o) ||
         py::isinstance<py::float_>(o);
}

Scalar scalar_of(py::handle o) {
  if (py::isinstance<py::bool_>(o)) return Scalar(o.cast<bool>());
  if (py::isinstance<py::int_>(o)) return Scalar(o.cast<int64_t>());
  if (py::isinstance<py::float_>(o)) return Scalar(o.cast<double>());
  throw py::type_error(fmt::format("expected a number, got {}",
                                   py::str(py::type::of(o)).cast<std::string>()));
}

bool has_op(const std::string& name) { return overloads().contains(name); }

std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const auto& [name, ops] : overloads()) v.push_back(name);
  return v;
}

std::vector<std::string> op_schemas(const std::string& name) {
  auto it = overloads().find(name);
  if (it == overloads().end())
    throw py::attribute_error(fmt::format("plexus has no op '{}'", name));
  std::vector<std::string> v;
  for (const Operator* op : it->second) v.push_back(op->schema().str());
  return v;
}

py::object call_op(const std::string& name, py::args args, py::kwargs kwargs) {
  auto it = overloads().find(name);
  if (it == overloads().end()) throw py::attribute_error(fmt::format("plexus has no op '{}'", name));
  std::vector<std::string> reasons;
  for (bool numbers : {false, true}) {
    for (const Operator* op : it->second) {
      Keep keep;
      std::vector<Value> values;
      std::string why;
      if (!bind(*op, args, kwargs, numbers, keep, values, why)) {
        if (numbers) reasons.push_back(why);
        continue;
      }
      Tensor result;
      {
        py::gil_scoped_release release;
        result = Dispatcher::get().call(*op, values);
      }
      if (!result.defined()) return py::none();
      return py::cast(result);
    }
  }
  throw py::type_error(fmt::format("no overload of {} takes these arguments:\n  {}", name,
                                   fmt::join(reasons, "\n  ")));
}

}  // namespace plexus::python
