// The _plexus extension module: libplexus for Python. The package around it
// (python/plexus/) adds the op functions, nn and the context managers.
#include <fmt/format.h>

#include "bindings.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/plugins.h"
#include "plexus/runtime.h"

namespace plexus::python {
namespace {

// The process's Runtime: opened on first use and never closed (plugins stay
// loaded until the process ends, after Python has dropped every tensor).
Runtime* g_runtime = nullptr;

Runtime& runtime(std::optional<std::string> config) {
  if (g_runtime) {
    if (config && !config->empty())
      throw py::value_error("plexus.init(): the runtime is already open; call init() before "
                            "anything else uses plexus");
    return *g_runtime;
  }
  RuntimeOptions o;
  if (config) o.config_path = *config;
  py::gil_scoped_release release;
  g_runtime = new Runtime(o);
  return *g_runtime;
}

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<Runtime>(m, "Runtime")
      .def_property_readonly("device", &Runtime::device)
      .def("explain", &Runtime::explain);
  m.def("init", [](std::optional<std::string> config) { return &runtime(config); },
        py::arg("config") = py::none(), py::return_value_policy::reference,
        "Opens the runtime (plexus.toml: the given file, else PLEXUS_CONFIG, ./plexus.toml, "
        "$XDG_CONFIG_HOME/plexus/) and loads its plugins. Later calls return it.");
  m.def("runtime", []() { return &runtime(std::nullopt); }, py::return_value_policy::reference);
  m.def("plugins", []() {
    py::list out;
    for (const PluginRecord& r : plugin_records()) {
      py::dict d;
      d["name"] = r.name;
      d["state"] = plugin_state_name(r.state);
      d["reason"] = r.reason;
      d["version"] = r.version;
      d["device_types"] = r.device_types;
      out.append(d);
    }
    return out;
  });
}

}  // namespace plexus::python

PYBIND11_MODULE(_plexus, m) {
  using namespace plexus;
  m.doc() = "plexus: a multi-backend tensor runtime (the C++ library, for Python)";
  // plexus::Error -> the Python exception of its kind, with the same text.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      switch (e.code()) {
        case ErrorCode::InvalidArgument: PyErr_SetString(PyExc_ValueError, e.what()); return;
        case ErrorCode::OutOfMemory: PyErr_SetString(PyExc_MemoryError, e.what()); return;
        case ErrorCode::NotFound: PyErr_SetString(PyExc_LookupError, e.what()); return;
        case ErrorCode::IoError: PyErr_SetString(PyExc_OSError, e.what()); return;
        case ErrorCode::Unsupported: PyErr_SetString(PyExc_NotImplementedError, e.what()); return;
        default: PyErr_SetString(PyExc_RuntimeError, e.what()); return;
      }
    }
  });
  python::bind_tensor(m);
  python::bind_runtime(m);
  python::bind_training(m);
}
