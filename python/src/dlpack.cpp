// DLPack for Python: Tensor.__dlpack__ / __dlpack_device__ (the array API
// protocol) and plexus.from_dlpack, on PyCapsules named "dltensor" (legacy)
// and "dltensor_versioned" (DLPack 1.x), renamed "used_..." once consumed.
//
// Devices: cpu, cuda and hip memory is shared without a copy, with the
// array API's stream rule in both directions. vulkan memory has a DLPack
// code (kDLVulkan, for __dlpack_device__) but is never handed out: its data
// pointer is the vulkan plugin's allocation handle, meaningful to no other
// framework, so only a host copy leaves. A vendor's device has no code and
// also leaves only as a host copy (dl_device=(1, 0)).
#include "plexus/dlpack.h"

#include <fmt/format.h>

#include "bindings.h"
#include "plexus/stream.h"

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

bool is_gpu_code(int32_t code) {
  return code == kDLCUDA || code == kDLCUDAManaged || code == kDLROCM;
}

// The array API's stream rule: before the consumer works on `stream` (an
// integer handle; None: its default stream; -1: it orders the work itself),
// what plexus queued on the tensor's device must be done or ordered before.
// plexus cannot enqueue a wait on a foreign stream, so unless the consumer
// named plexus's current stream itself, the current stream is synchronized
// on the host: correct for every consumer, at the cost of a wait.
void order_for_consumer(const Tensor& t, py::object stream) {
  if (t.device().is_cpu()) {
    if (!stream.is_none() && stream.cast<int64_t>() != -1)
      throw py::buffer_error(
          fmt::format("__dlpack__: stream={} for a cpu tensor (cpu tensors take stream=None)",
                      py::str(stream).cast<std::string>()));
    return;
  }
  if (!stream.is_none() && stream.cast<int64_t>() == -1) return;
  Stream current = Stream::current(t.device());
  if (!stream.is_none() && current.handle() &&
      stream.cast<int64_t>() == reinterpret_cast<intptr_t>(current.handle()))
    return;  // the consumer works on plexus's current stream: ordered already
  py::gil_scoped_release release;
  current.synchronize();
}

py::object dlpack(const Tensor& self, py::object stream, py::object max_version,
                  py::object dl_device, py::object copy) {
  Tensor t = self.detach();
  bool copied = false;
  const bool may_copy = copy.is_none() || copy.cast<bool>();
  if (!dl_device.is_none()) {
    auto want = dl_device.cast<std::pair<int32_t, int32_t>>();
    if (want.first == kDLCPU && !t.device().is_cpu()) {
      if (!may_copy)
        throw py::buffer_error(fmt::format(
            "__dlpack__: the tensor is on {}, dl_device asks for the cpu, and copy=False",
            t.device().str()));
      py::gil_scoped_release release;
      t = t.cpu();  // a synchronous copy: nothing left to order
      copied = true;
    } else if (!t.device().is_cpu() || want.first != kDLCPU) {
      DLDevice have = dlpack_device(t.device());
      if (want.first != have.device_type || want.second != have.device_id)
        throw py::buffer_error(fmt::format(
            "__dlpack__: cannot export {} memory to DLPack device ({}, {}); only to its own "
            "({}, {}) or, with a copy, to the cpu (1, 0)",
            t.device().str(), want.first, want.second, have.device_type, have.device_id));
    }
  }
  const bool host_copy = copied;  // made synchronously: nothing left to order
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
  // The capsule first: a device or dtype DLPack cannot carry fails here,
  // before any wait for the device. The capsule frees what it holds if the
  // ordering below throws.
  py::capsule capsule;
  try {
    capsule = versioned ? make_capsule(to_dlpack_versioned(t, false, copied), "dltensor_versioned")
                        : make_capsule(to_dlpack(t), "dltensor");
  } catch (const Error& e) {  // a device or dtype DLPack cannot carry: the protocol's error
    if (e.code() != ErrorCode::Unsupported) throw;
    throw py::buffer_error(e.what());
  }
  // After the clone, if any: the consumer must see it finished.
  if (!host_copy) order_for_consumer(t, stream);
  return capsule;
}

// The stream plexus asks a gpu producer to order its work for: the current
// stream of the matching plexus device, else the default one (CUDA's legacy
// default stream 1, which also orders per-thread default streams; ROCm's 0).
py::object consumer_stream(int32_t code, int32_t index) {
  if (!is_gpu_code(code)) return py::none();
  auto type = find_device_type(code == kDLROCM ? "hip" : "cuda");
  if (type && index >= 0 && index <= INT16_MAX) {
    Stream s = Stream::current(Device(*type, static_cast<int16_t>(index)));
    if (s.handle()) return py::int_(reinterpret_cast<intptr_t>(s.handle()));
  }
  return py::int_(code == kDLROCM ? 0 : 1);
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
  m.def(
      "from_dlpack",
      [](py::object obj) {
        if (py::isinstance<Tensor>(obj)) return obj.cast<Tensor>().detach();  // any device
        if (py::isinstance<py::capsule>(obj)) return from_capsule(obj);
        if (!py::hasattr(obj, "__dlpack__"))
          throw py::type_error(fmt::format("from_dlpack: {} has no __dlpack__",
                                           py::str(py::type::of(obj)).cast<std::string>()));
        py::object stream = py::none();
        if (py::hasattr(obj, "__dlpack_device__")) {
          auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int32_t, int32_t>>();
          stream = consumer_stream(dev.first, dev.second);
        }
        py::object cap;
        try {  // ask for DLPack 1.x; producers that predate it take no max_version
          cap = obj.attr("__dlpack__")(py::arg("stream") = stream,
                                       py::arg("max_version") = py::make_tuple(1, 0));
        } catch (py::error_already_set& e) {
          if (!e.matches(PyExc_TypeError)) throw;
          cap = obj.attr("__dlpack__")(py::arg("stream") = stream);
        }
        return from_capsule(cap);
      },
      py::arg("obj"),
      "A tensor sharing the memory of obj (numpy, torch, ... or a DLPack capsule).");
}

}  // namespace plexus::python
