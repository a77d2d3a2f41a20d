// DLPack for Python: Tensor.__dlpack__ / __dlpack_device__ (the array API
// protocol) and plexus.from_dlpack, on PyCapsules named "dltensor" (legacy)
// and "dltensor_versioned" (DLPack 1.x), renamed "used_..." once consumed.
#include <fmt/format.h>

#include "bindings.h"
#include "plexus/dlpack.h"

namespace plexus::python {
namespace {

// A capsule whose destructor frees the DLPack tensor unless a consumer took it.
template <typename Managed>
py::capsule make_capsule(Managed* m, const char* name) {
  return py::capsule(m, name, [](PyObject* cap) {
    const char* n = PyCapsule_GetName(cap);
    if (n && std::string_view(n).rfind("used_", 0) == 0) return;  // consumed
    auto* p = static_cast<Managed*>(PyCapsule_GetPointer(cap, n));
    if (p && p->deleter) p->deleter(p);
    PyErr_Clear();
  });
}

py::object dlpack(const Tensor& self, py::object stream, py::object max_version,
                  py::object dl_device, py::object copy) {
  (void)stream;  // plexus devices here synchronize their copies; nothing to order
  Tensor t = self.detach();
  bool copied = false;
  if (!dl_device.is_none()) {
    auto want = dl_device.cast<std::pair<int32_t, int32_t>>();
    DLDevice have = dlpack_device(t.device());
    if (want.first != have.device_type || want.second != have.device_id) {
      if (want.first != kDLCPU)
        throw py::buffer_error(fmt::format("__dlpack__: cannot export to DLPack device ({}, {})",
                                           want.first, want.second));
      if (!copy.is_none() && !copy.cast<bool>())
        throw py::buffer_error("__dlpack__: the tensor is not on the cpu and copy=False");
      py::gil_scoped_release release;
      t = t.cpu();
      copied = true;
    }
  }
  if (!copy.is_none() && copy.cast<bool>() && !copied) {
    py::gil_scoped_release release;
    t = t.clone();
    copied = true;
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    auto v = max_version.cast<std::pair<int, int>>();
    versioned = v.first >= 1;
  }
  if (versioned)
    return make_capsule(to_dlpack_versioned(t, false, copied), "dltensor_versioned");
  return make_capsule(to_dlpack(t), "dltensor");
}

Tensor from_capsule(py::capsule cap) {
  const char* name = PyCapsule_GetName(cap.ptr());
  std::string_view n = name ? name : "";
  if (n == "dltensor_versioned") {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap.ptr(), name));
    PyCapsule_SetName(cap.ptr(), "used_dltensor_versioned");
    return from_dlpack(m);
  }
  if (n == "dltensor") {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), name));
    PyCapsule_SetName(cap.ptr(), "used_dltensor");
    return from_dlpack(m);
  }
  if (n.rfind("used_", 0) == 0)
    throw py::value_error("from_dlpack: this DLPack capsule was already consumed");
  throw py::type_error(fmt::format("from_dlpack: expected a DLPack capsule, got one named '{}'", n));
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(),
          py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
          py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        DLDevice d = dlpack_device(t.device());
        return py::make_tuple(d.device_type, d.device_id);
      });
  m.def("from_dlpack", [](py::object obj) {
    if (py::isinstance<py::capsule>(obj)) return from_capsule(obj);
    if (!py::hasattr(obj, "__dlpack__"))
      throw py::type_error(fmt::format("from_dlpack: {} has no __dlpack__",
                                       py::str(py::type::of(obj)).cast<std::string>()));
    py::object cap;
    try {  // ask for DLPack 1.x; producers that predate it take no max_version
      cap = obj.attr("__dlpack__")(py::arg("max_version") = py::make_tuple(1, 0));
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;
      cap = obj.attr("__dlpack__")();
    }
    return from_capsule(cap);
  }, py::arg("obj"), "A tensor sharing the memory of obj (numpy, torch, ... or a DLPack capsule).");
}

}  // namespace plexus::python
