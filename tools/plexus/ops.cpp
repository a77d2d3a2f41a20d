#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "plexus/dispatcher.h"

namespace plexus::cli {
namespace {

std::string_view kind_name(OpKind k) {
  switch (k) {
    case OpKind::Functional: return "functional";
    case OpKind::Inplace: return "inplace";
    case OpKind::Out: return "out";
    case OpKind::Direct: return "direct";
  }
  return "?";
}

// Backend name -> dtypes of the kernel registered on the op's kernel op.
nlohmann::json kernels_of(const Operator& op) {
  nlohmann::json k = nlohmann::json::object();
  std::vector<std::string> names = registered_device_types();
  for (size_t slot = 0; slot < names.size(); ++slot)
    if (const KernelEntry* e = op.kernel_op().kernel(static_cast<DeviceType>(slot)))
      k[names[slot]] = e->dtypes.str();
  return k;
}

}  // namespace

int ops(bool json) {
  auto all = Dispatcher::get().ops();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Operator* op : all)
      list.push_back({{"name", op->name()},
                      {"schema", op->schema().str()},
                      {"kind", kind_name(op->kind())},
                      {"kernel_op", op->kernel_op().name()},
                      {"dtypes", op->catalog_dtypes().str()},
                      {"composite", op->composite() != nullptr},
                      {"kernels", kernels_of(*op)}});
    fmt::print("{}\n", nlohmann::json{{"ops", list}}.dump(2));
    return 0;
  }
  for (const Operator* op : all) {
    std::string backends;
    nlohmann::json kernels = kernels_of(*op);
    for (auto& [name, dtypes] : kernels.items())
      backends += (backends.empty() ? "" : ", ") + name;
    fmt::print("{}\n    kernels on {}: {}{}\n", op->schema().str(), op->kernel_op().name(),
               backends.empty() ? "none" : backends, op->composite() ? "; has a composite" : "");
  }
  fmt::print("{} ops\n", all.size());
  return 0;
}

}  // namespace plexus::cli
