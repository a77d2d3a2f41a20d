// `plexus ops`: the coverage matrix (op x backend: native, composite, fallback,
// missing), one op's schemas and kernels (`plexus ops NAME`), the schema
// listing (`--schemas`), and all of it as JSON (`--json`).
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "plexus/config.h"
#include "plexus/autograd.h"
#include "plexus/coverage.h"
#include "plexus/dispatcher.h"
#include "plexus/plugins.h"

namespace plexus::cli {
namespace {

constexpr Route kRoutes[] = {Route::Native, Route::Composite, Route::Fallback, Route::Missing};

std::string_view kind_name(OpKind k) {
  switch (k) {
    case OpKind::Functional:
      return "functional";
    case OpKind::Inplace:
      return "inplace";
    case OpKind::Out:
      return "out";
    case OpKind::Direct:
      return "direct";
  }
  return "?";
}

// "f32, bf16" is too wide for a matrix cell: "f32,bf16".
std::string short_dtypes(DTypeSet s) {
  static constexpr const char* kShort[kNumDTypes] = {"bool", "u8",  "i8",   "i16", "i32",
                                                     "i64",  "f16", "bf16", "f32", "f64"};
  std::string out;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!s.contains(static_cast<DType>(i))) continue;
    if (!out.empty()) out += ',';
    out += kShort[i];
  }
  return out;
}

std::vector<std::string> dtype_list(DTypeSet s) {
  std::vector<std::string> out;
  for (int i = 0; i < kNumDTypes; ++i)
    if (s.contains(static_cast<DType>(i))) out.emplace_back(dtype_name(static_cast<DType>(i)));
  return out;
}

// One matrix cell: "native", or "native(f32)+fallback" when routes split the dtypes.
std::string cell(const Coverage& c) {
  if (c.uniform()) return std::string(route_name(c.route()));
  std::string s = fmt::format("{}({})", route_name(c.route()), short_dtypes(c.of(c.route())));
  for (Route r : kRoutes)
    if (r != c.route() && !c.of(r).empty()) s += fmt::format("+{}", route_name(r));
  return s;
}

// The backends: every registered device type (the core's cpu and each plugin's).
std::vector<std::pair<std::string, DeviceType>> backends() {
  std::vector<std::pair<std::string, DeviceType>> out;
  for (const std::string& name : registered_device_types())
    if (auto slot = find_device_type(name)) out.emplace_back(name, *slot);
  return out;
}

// The ops whose tables hold the kernels: what a backend implements.
std::vector<const Operator*> kernel_ops() {
  std::vector<const Operator*> out;
  for (const Operator* op : Dispatcher::get().ops())
    if (&op->kernel_op() == op) out.push_back(op);
  return out;
}

nlohmann::json op_json(const Operator& op) {
  nlohmann::json kernels = nlohmann::json::object(), cov = nlohmann::json::object();
  for (auto& [name, slot] : backends()) {
    if (const KernelEntry* e = op.kernel_op().kernel(slot))
      kernels[name] = {{"dtypes", dtype_list(e->dtypes)}, {"source", std::string(e->source)}};
    Coverage c = coverage(op, slot);
    nlohmann::json j = {{"route", route_name(c.route())}};
    for (Route r : kRoutes) j[std::string(route_name(r))] = dtype_list(c.of(r));
    cov[name] = j;
  }
  return {{"name", op.name()},
          {"schema", op.schema().str()},
          {"kind", kind_name(op.kind())},
          {"kernel_op", op.kernel_op().name()},
          {"dtypes", dtype_list(op.catalog_dtypes())},
          {"composite", op.composite() != nullptr},
          {"differentiable", std::string(autograd::differentiable_name(autograd::differentiable(op)))},
          {"kernels", kernels},
          {"coverage", cov}};
}

int print_json(const std::vector<const Operator*>& ops) {
  nlohmann::json names = nlohmann::json::array(), list = nlohmann::json::array();
  for (auto& b : backends()) names.push_back(b.first);
  for (const Operator* op : ops) list.push_back(op_json(*op));
  nlohmann::json out = {
      {"backends", names},
      {"fallback_policy", fallback_policy_name(Dispatcher::get().fallback_policy())},
      {"ops", list}};
  fmt::print("{}\n", out.dump(2));
  return 0;
}

int print_matrix() {
  auto bs = backends();
  auto ops = kernel_ops();
  size_t w0 = 2;
  for (const Operator* op : ops) w0 = std::max(w0, op->name().size());
  std::vector<std::vector<std::string>> cells(ops.size());
  std::vector<size_t> widths;
  std::vector<std::array<int, 4>> counts(bs.size());
  for (size_t b = 0; b < bs.size(); ++b) {
    size_t w = bs[b].first.size();
    for (size_t i = 0; i < ops.size(); ++i) {
      Coverage c = coverage(*ops[i], bs[b].second);
      counts[b][static_cast<int>(c.route())]++;
      w = std::max(w, cells[i].emplace_back(cell(c)).size());
    }
    widths.push_back(w);
  }
  fmt::print("{:<{}}", "op", w0);
  for (size_t b = 0; b < bs.size(); ++b) fmt::print("  {:<{}}", bs[b].first, widths[b]);
  fmt::print("  grad\n");
  for (size_t i = 0; i < ops.size(); ++i) {
    fmt::print("{:<{}}", ops[i]->name(), w0);
    for (size_t b = 0; b < bs.size(); ++b) fmt::print("  {:<{}}", cells[i][b], widths[b]);
    fmt::print("  {}\n", autograd::differentiable_name(autograd::differentiable(*ops[i])));
  }
  fmt::print("\n{} ops hold kernels (their functional and in-place forms run through them).\n",
             ops.size());
  for (size_t b = 0; b < bs.size(); ++b)
    fmt::print("{}: {} native, {} composite, {} fallback, {} missing\n", bs[b].first, counts[b][0],
               counts[b][1], counts[b][2], counts[b][3]);
  fmt::print(
      "\nnative     a kernel on the backend (dtypes in parentheses when routes split them)\n"
      "composite  the catalog decomposes the op into other ops\n"
      "fallback   runs on the cpu when the fallback policy is 'cpu' (it is '{}' now)\n"
      "missing    nothing runs it\n"
      "grad       yes: a derivative rule; composite: differentiated op by op; no: integer or\n"
      "           bool results; missing: no rule yet (autograd/README.md)\n"
      "`plexus ops NAME` shows one op, --schemas every schema, --json all of it.\n",
      fallback_policy_name(Dispatcher::get().fallback_policy()));
  return 0;
}

// The listing of every schema with the backends that have kernels for it.
int print_schemas() {
  auto all = Dispatcher::get().ops();
  for (const Operator* op : all) {
    std::string names;
    for (auto& [name, slot] : backends())
      if (op->kernel_op().kernel(slot)) names += (names.empty() ? "" : ", ") + name;
    fmt::print("{}\n    kernels on {}: {}{}\n", op->schema().str(), op->kernel_op().name(),
               names.empty() ? "none" : names, op->composite() ? "; has a composite" : "");
  }
  fmt::print("{} ops\n", all.size());
  return 0;
}

void print_op(const Operator& op) {
  fmt::print("{}\n  kind: {}; kernels are registered on {}\n", op.schema().str(),
             kind_name(op.kind()), op.kernel_op().name());
  fmt::print("  catalog dtypes: {}\n  composite: {}\n  differentiable: {}\n",
             op.catalog_dtypes().str(), op.composite() ? "yes" : "no",
             autograd::differentiable_name(autograd::differentiable(op)));
  for (auto& [name, slot] : backends()) {
    Coverage c = coverage(op, slot);
    std::string routes;
    for (Route r : kRoutes)
      if (!c.of(r).empty())
        routes += fmt::format("{}{} for {}", routes.empty() ? "" : "; ", route_name(r),
                              c.uniform() ? "every dtype" : c.of(r).str());
    const KernelEntry* e = op.kernel_op().kernel(slot);
    fmt::print("  {}: {}{}\n", name, routes,
               e ? fmt::format(" (kernel from {})", e->source) : std::string());
  }
}

// The ops a name selects: the op itself, or every op with that base name ("add").
std::vector<const Operator*> select(const std::vector<std::string>& names) {
  std::vector<const Operator*> out;
  for (const std::string& n : names) {
    size_t before = out.size();
    for (const Operator* op : Dispatcher::get().ops())
      if (op->name() == n || op->schema().name == n) out.push_back(op);
    if (out.size() == before) Dispatcher::get().op(n);  // throws NotFound with suggestions
  }
  return out;
}

}  // namespace

int ops(bool json, bool schemas, const std::vector<std::string>& names,
        const std::string& config_path) {
  // The config decides which plugins load and the fallback policy, as in an application.
  Config config = load_config(config_path);
  Dispatcher::get().set_fallback_policy(config.fallback);
  load_plugins(config.plugin_load_options());
  if (!names.empty()) {
    auto selected = select(names);
    if (json) return print_json(selected);
    for (size_t i = 0; i < selected.size(); ++i) {
      if (i) fmt::print("\n");
      print_op(*selected[i]);
    }
    return 0;
  }
  if (json) return print_json(Dispatcher::get().ops());
  return schemas ? print_schemas() : print_matrix();
}

}  // namespace plexus::cli
