// px.Tensor, px.dtype, px.Device and the factories; numpy interop (the
// buffer protocol and from_numpy, both without copies for cpu memory).
#include <pybind11/numpy.h>
#include <pybind11/operators.h>

#include <fmt/format.h>

#include "bindings.h"
#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/random.h"

namespace plexus::python {
namespace {

// ---- numpy dtypes -----------------------------------------------------------

std::string numpy_format(DType t) {
  switch (t) {
    case DType::Bool: return "?";
    case DType::U8: return "B";
    case DType::I8: return "b";
    case DType::I16: return "h";
    case DType::I32: return "i";
    case DType::I64: return "q";
    case DType::F16: return "e";
    case DType::F32: return "f";
    case DType::F64: return "d";
    case DType::BF16: break;
  }
  throw py::type_error("numpy has no bfloat16: convert first, e.g. t.to(px.float32)");
}

DType dtype_of_numpy(const py::dtype& d) {
  char kind = d.kind();
  size_t size = static_cast<size_t>(d.itemsize());
  if (kind == 'b') return DType::Bool;
  if (kind == 'u' && size == 1) return DType::U8;
  if (kind == 'i' && size == 1) return DType::I8;
  if (kind == 'i' && size == 2) return DType::I16;
  if (kind == 'i' && size == 4) return DType::I32;
  if (kind == 'i' && size == 8) return DType::I64;
  if (kind == 'f' && size == 2) return DType::F16;
  if (kind == 'f' && size == 4) return DType::F32;
  if (kind == 'f' && size == 8) return DType::F64;
  throw py::type_error(fmt::format("numpy dtype {} has no plexus dtype",
                                   py::str(static_cast<py::handle>(d)).cast<std::string>()));
}

// A cpu tensor over a numpy array's memory, which it keeps alive.
Tensor from_numpy(py::array a) {
  if (!(a.flags() & py::array::c_style) && !(a.flags() & py::array::f_style) && a.ndim() > 0) {
    // any strides are fine as long as they are whole elements
  }
  DType t = dtype_of_numpy(a.dtype());
  std::vector<int64_t> sizes, strides;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    sizes.push_back(a.shape(d));
    if (a.strides(d) % a.itemsize() != 0 || a.strides(d) < 0)
      throw py::value_error("from_numpy: strides must be non-negative whole elements");
    strides.push_back(a.strides(d) / a.itemsize());
  }
  auto* keep = new py::object(a);
  return from_blob(const_cast<void*>(a.data()), sizes, strides, TensorOptions(t, Device()),
                   [keep](void*) {
                     py::gil_scoped_acquire gil;
                     delete keep;
                   });
}

// ---- creation from Python data ------------------------------------------------

void shape_of(py::handle o, std::vector<int64_t>& shape, size_t depth) {
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(o);
    int64_t n = static_cast<int64_t>(py::len(s));
    if (shape.size() == depth) shape.push_back(n);
    else if (shape[depth] != n)
      throw py::value_error(fmt::format("tensor(): ragged nested sequence (length {} at depth "
                                        "{}, expected {})", n, depth, shape[depth]));
    for (py::handle e : s) shape_of(e, shape, depth + 1);
  } else if (shape.size() != depth) {
    throw py::value_error("tensor(): ragged nested sequence (a number where a list was expected)");
  }
}

void flatten_into(py::handle o, std::vector<py::handle>& out) {
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    for (py::handle e : o) flatten_into(e, out);
  } else {
    out.push_back(o);
  }
}

Tensor tensor_from_data(py::handle data, std::optional<DType> dtype, std::optional<std::string> device) {
  Device dev = device ? Device::parse(*device) : Device();
  if (py::isinstance<Tensor>(data)) {
    Tensor t = data.cast<Tensor>().detach().clone();
    return t.to(dev, dtype.value_or(t.dtype()));
  }
  if (py::isinstance<py::array>(data)) {
    Tensor t = from_numpy(py::reinterpret_borrow<py::array>(data)).clone();
    return t.to(dev, dtype.value_or(t.dtype()));
  }
  std::vector<int64_t> shape;
  shape_of(data, shape, 0);
  std::vector<py::handle> items;
  flatten_into(data, items);
  bool all_bool = !items.empty(), all_int = !items.empty();
  for (py::handle e : items) {
    if (!py::isinstance<py::bool_>(e) && !py::isinstance<py::int_>(e) &&
        !py::isinstance<py::float_>(e))
      throw py::type_error(fmt::format("tensor(): expected numbers, got {}",
                                       py::str(py::type::of(e)).cast<std::string>()));
    all_bool = all_bool && py::isinstance<py::bool_>(e);
    all_int = all_int && py::isinstance<py::int_>(e);
  }
  DType inferred = all_bool ? DType::Bool : all_int ? DType::I64 : DType::F32;
  Tensor host = empty(shape, TensorOptions(DType::F64));
  double* p = host.data<double>();
  for (size_t i = 0; i < items.size(); ++i) p[i] = items[i].cast<double>();
  if (inferred == DType::I64 && !dtype) {  // integers beyond 2^53 stay exact
    Tensor ints = empty(shape, TensorOptions(DType::I64));
    int64_t* q = ints.data<int64_t>();
    for (size_t i = 0; i < items.size(); ++i) q[i] = items[i].cast<int64_t>();
    return ints.to(dev);
  }
  return host.to(dev, dtype.value_or(inferred));
}

std::vector<int64_t> sizes_of(py::args args) {
  // zeros(2, 3) and zeros((2, 3)) alike
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0])))
    return args[0].cast<std::vector<int64_t>>();
  return args.cast<std::vector<int64_t>>();
}

TensorOptions options_of(std::optional<DType> dtype, std::optional<std::string> device,
                         DType fallback = DType::F32) {
  return TensorOptions(dtype.value_or(fallback), device ? Device::parse(*device) : Device());
}

Tensor finish(Tensor t, bool requires_grad) {
  if (requires_grad) t.requires_grad_(true);
  return t;
}

// ---- indexing -----------------------------------------------------------------

Tensor index(const Tensor& self, py::handle key) {
  py::tuple items = py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key)
                                                   : py::make_tuple(key);
  // Dims the key consumes, to expand an Ellipsis.
  int64_t consumed = 0;
  bool ellipsis = false;
  for (py::handle k : items) {
    if (k.is_none()) continue;
    if (k.is(py::ellipsis())) {
      if (ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      ellipsis = true;
      continue;
    }
    ++consumed;
  }
  if (consumed > self.dim())
    throw py::index_error(fmt::format("too many indices for a tensor of dimension {}", self.dim()));
  Tensor t = self;
  int64_t dim = 0;
  for (py::handle k : items) {
    if (k.is_none()) {
      t = t.unsqueeze(dim++);
    } else if (k.is(py::ellipsis())) {
      // `consumed` now counts the items after it: they take the last dims.
      dim = t.dim() - consumed;
    } else if (py::isinstance<py::int_>(k) && !py::isinstance<py::bool_>(k)) {
      int64_t i = k.cast<int64_t>();
      int64_t n = t.size(dim);
      if (i < -n || i >= n)
        throw py::index_error(fmt::format("index {} is out of bounds for dimension {} with size {}",
                                          i, dim, n));
      t = t.select(dim, i < 0 ? i + n : i);
      --consumed;
    } else if (py::isinstance<py::slice>(k)) {
      py::ssize_t start, stop, step, length;
      if (!py::reinterpret_borrow<py::slice>(k).compute(t.size(dim), &start, &stop, &step, &length))
        throw py::error_already_set();
      if (step <= 0) throw py::value_error("slice step must be positive");
      t = t.slice(dim, start, start + length * step, step);
      ++dim;
      --consumed;
    } else {
      throw py::type_error(fmt::format("indices must be integers, slices, None or ..., got {}",
                                       py::str(py::type::of(k)).cast<std::string>()));
    }
  }
  return t;
}

// ---- printing -------------------------------------------------------------------

std::string repr(const Tensor& t) {
  py::module_ np = py::module_::import("numpy");
  Tensor host = t.detach().to(Device(), t.dtype() == DType::BF16 ? DType::F32 : t.dtype());
  py::object arr = py::cast(host).attr("numpy")();
  std::string body = np.attr("array2string")(arr, py::arg("separator") = ", ",
                                             py::arg("prefix") = "tensor(")
                         .cast<std::string>();
  std::string extra;
  if (!t.device().is_cpu()) extra += fmt::format(", device='{}'", t.device().str());
  if (t.dtype() != DType::F32 && t.dtype() != DType::I64 && t.dtype() != DType::Bool)
    extra += fmt::format(", dtype=plexus.{}", dtype_name(t.dtype()));
  if (t.requires_grad()) extra += ", requires_grad=True";
  return fmt::format("tensor({}{})", body, extra);
}

py::object scalar_to_python(Scalar s) {
  if (s.is_bool()) return py::bool_(s.to_bool());
  if (s.is_integral()) return py::int_(s.to_int());
  return py::float_(s.to_double());
}

// Runs f with the GIL released.
template <typename F>
Tensor nogil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

Tensor number_or_tensor(py::handle o) {
  if (py::isinstance<Tensor>(o)) return o.cast<Tensor>();
  if (is_number(o)) return wrapped_scalar(scalar_of(o));
  throw py::type_error(fmt::format("expected a Tensor or a number, got {}",
                                   py::str(py::type::of(o)).cast<std::string>()));
}

// Operator methods over the C++ API (no overload search): a Tensor and a
// Tensor or a number, run with the GIL released.
template <typename F>
auto binary(F f) {
  return [f](const Tensor& a, py::handle b) {
    Tensor o = number_or_tensor(b);
    return nogil([&] { return f(a, o); });
  };
}
template <typename F>
auto reflected(F f) {  // 1 - x: the number comes first
  return [f](const Tensor& a, py::handle b) {
    Tensor o = number_or_tensor(b);
    return nogil([&] { return f(o, a); });
  };
}
template <typename F>
auto in_place(F f) {  // x += 1 returns x itself
  return [f](const Tensor& a, py::handle b) {
    Tensor o = number_or_tensor(b);
    nogil([&] { return Tensor(f(a, o)); });
    return a;
  };
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::enum_<DType>(m, "dtype")
      .value("bool", DType::Bool).value("uint8", DType::U8).value("int8", DType::I8)
      .value("int16", DType::I16).value("int32", DType::I32).value("int64", DType::I64)
      .value("float16", DType::F16).value("bfloat16", DType::BF16)
      .value("float32", DType::F32).value("float64", DType::F64)
      .def_property_readonly("itemsize", [](DType t) { return itemsize(t); })
      .def_property_readonly("is_floating_point", [](DType t) { return is_floating(t); })
      .def("__repr__", [](DType t) { return fmt::format("plexus.{}", dtype_name(t)); });

  py::class_<Device>(m, "Device")
      .def(py::init([](const std::string& s) { return Device::parse(s); }))
      .def_property_readonly("type", [](const Device& d) { return std::string(device_type_name(d.type)); })
      .def_property_readonly("index", [](const Device& d) { return d.index; })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) { return fmt::format("device('{}')", d.str()); })
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.str()); });
  py::implicitly_convertible<py::str, Device>();

  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol());
  cls.def_buffer([](Tensor& self) -> py::buffer_info {
    if (!self.device().is_cpu())
      throw py::type_error(fmt::format("a tensor on {} has no host buffer: call .cpu() first",
                                       self.device().str()));
    std::vector<py::ssize_t> shape, strides;
    for (int64_t d = 0; d < self.dim(); ++d) {
      shape.push_back(self.size(d));
      strides.push_back(self.stride(d) * static_cast<int64_t>(self.itemsize()));
    }
    return py::buffer_info(self.data_ptr(), static_cast<py::ssize_t>(self.itemsize()),
                           numpy_format(self.dtype()), self.dim(), shape, strides);
  });
  cls.def_property_readonly("shape", [](const Tensor& s) {
     return py::tuple(py::cast(std::vector<int64_t>(s.sizes().begin(), s.sizes().end())));
   })
      .def("size", [](const Tensor& s, std::optional<int64_t> d) -> py::object {
             if (d) return py::int_(s.size(*d));
             return py::tuple(py::cast(std::vector<int64_t>(s.sizes().begin(), s.sizes().end())));
           }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& s) {
        return py::tuple(py::cast(std::vector<int64_t>(s.strides().begin(), s.strides().end())));
      })
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("element_size", &Tensor::itemsize)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("__len__", [](const Tensor& s) {
        if (s.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return s.size(0);
      })
      .def("__repr__", &repr)
      // Autograd.
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](const Tensor& s, bool on) { s.requires_grad_(on); })
      .def("requires_grad_", [](const Tensor& s, bool on) { s.requires_grad_(on); return s; },
           py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& s) -> py::object {
        Tensor g = s.grad();  // None until backward reaches it, as in torch
        return g.defined() ? py::cast(g) : py::none();
      }, [](const Tensor& s, std::optional<Tensor> g) { s.set_grad(g.value_or(Tensor())); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("grad_fn", [](const Tensor& s) -> py::object {
        if (autograd::Node* n = s.grad_fn()) return py::str(n->name());
        return py::none();
      })
      .def("detach", &Tensor::detach)
      .def("backward", [](const Tensor& s, std::optional<Tensor> g, bool retain, bool create) {
             py::gil_scoped_release release;
             s.backward(g.value_or(Tensor()), retain, create);
           }, py::arg("gradient") = py::none(), py::arg("retain_graph") = false,
           py::arg("create_graph") = false)
      // Copies, conversions, host values.
      .def("to", [](const Tensor& s, py::object a, std::optional<DType> dtype) {
             if (py::isinstance<DType>(a)) return nogil([&] { return s.to(a.cast<DType>()); });
             Device d = py::isinstance<py::str>(a) ? Device::parse(a.cast<std::string>())
                                                    : a.cast<Device>();
             return nogil([&] { return s.to(d, dtype.value_or(s.dtype())); });
           }, py::arg("device_or_dtype"), py::arg("dtype") = py::none())
      .def("cpu", [](const Tensor& s) { return nogil([&] { return s.cpu(); }); })
      .def("clone", [](const Tensor& s) { return nogil([&] { return s.clone(); }); })
      .def("contiguous", [](const Tensor& s) { return nogil([&] { return s.contiguous(); }); })
      .def("item", [](const Tensor& s) { return scalar_to_python(s.item()); })
      .def("tolist", [](const Tensor& s) -> py::object {
        Tensor host = s.detach().to(Device(), s.dtype() == DType::BF16 ? DType::F32 : s.dtype());
        return py::cast(host).attr("numpy")().attr("tolist")();
      })
      .def("numpy", [](const Tensor& s) {
        if (!s.device().is_cpu())
          throw py::type_error(fmt::format("numpy() of a tensor on {}: call .cpu() first",
                                           s.device().str()));
        if (s.requires_grad())
          throw py::value_error("numpy() of a tensor that requires grad: call .detach() first");
        return py::array(py::cast(s));
      })
      .def("__float__", [](const Tensor& s) { return s.item().to_double(); })
      .def("__int__", [](const Tensor& s) { return s.item().to_int(); })
      .def("__bool__", [](const Tensor& s) {
        if (s.numel() != 1)
          throw py::value_error("the truth value of a tensor with more than one element is ambiguous");
        return s.item().to_double() != 0;
      })
      // Views.
      .def("view", [](const Tensor& s, py::args a) { return s.view(sizes_of(a)); })
      .def("reshape", [](const Tensor& s, py::args a) { return s.reshape(sizes_of(a)); })
      .def("permute", [](const Tensor& s, py::args a) { return s.permute(sizes_of(a)); })
      .def("expand", [](const Tensor& s, py::args a) { return s.expand(sizes_of(a)); })
      .def("transpose", &Tensor::transpose)
      .def("t", &Tensor::t)
      .def_property_readonly("T", [](const Tensor& s) {
        std::vector<int64_t> dims;
        for (int64_t d = s.dim() - 1; d >= 0; --d) dims.push_back(d);
        return s.permute(dims);
      })
      .def("unsqueeze", &Tensor::unsqueeze)
      .def("squeeze", [](const Tensor& s, std::optional<int64_t> d) {
        return d ? s.squeeze(*d) : s.squeeze();
      }, py::arg("dim") = py::none())
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("narrow", &Tensor::narrow)
      .def("select", &Tensor::select)
      .def("__getitem__", &index)
      .def("__setitem__", [](const Tensor& s, py::handle key, py::handle value) {
        Tensor view = index(s, key);
        if (py::isinstance<Tensor>(value)) {
          Tensor v = value.cast<Tensor>();
          nogil([&] { return view.copy_(v); });
        } else {
          Scalar v = scalar_of(value);
          nogil([&] { return view.fill_(v); });
        }
      })
      // Operators: the C++ API directly (no overload search).
      .def("__add__", binary([](const Tensor& x, const Tensor& y) { return add(x, y); }))
      .def("__radd__", reflected([](const Tensor& x, const Tensor& y) { return add(x, y); }))
      .def("__sub__", binary([](const Tensor& x, const Tensor& y) { return sub(x, y); }))
      .def("__rsub__", reflected([](const Tensor& x, const Tensor& y) { return sub(x, y); }))
      .def("__mul__", binary([](const Tensor& x, const Tensor& y) { return mul(x, y); }))
      .def("__rmul__", reflected([](const Tensor& x, const Tensor& y) { return mul(x, y); }))
      .def("__truediv__", binary([](const Tensor& x, const Tensor& y) { return div(x, y); }))
      .def("__rtruediv__", reflected([](const Tensor& x, const Tensor& y) { return div(x, y); }))
      .def("__pow__", binary([](const Tensor& x, const Tensor& y) { return pow(x, y); }))
      .def("__rpow__", reflected([](const Tensor& x, const Tensor& y) { return pow(x, y); }))
      .def("__matmul__", [](const Tensor& a, const Tensor& b) { return nogil([&] { return matmul(a, b); }); })
      .def("__neg__", [](const Tensor& a) { return nogil([&] { return neg(a); }); })
      .def("__abs__", [](const Tensor& a) { return nogil([&] { return abs(a); }); })
      .def("__eq__", binary([](const Tensor& x, const Tensor& y) { return eq(x, y); }))
      .def("__ne__", binary([](const Tensor& x, const Tensor& y) { return ne(x, y); }))
      .def("__lt__", binary([](const Tensor& x, const Tensor& y) { return lt(x, y); }))
      .def("__le__", binary([](const Tensor& x, const Tensor& y) { return le(x, y); }))
      .def("__gt__", binary([](const Tensor& x, const Tensor& y) { return gt(x, y); }))
      .def("__ge__", binary([](const Tensor& x, const Tensor& y) { return ge(x, y); }))
      .def("__iadd__", in_place([](const Tensor& x, const Tensor& y) { return x.add_(y); }))
      .def("__isub__", in_place([](const Tensor& x, const Tensor& y) { return x.sub_(y); }))
      .def("__imul__", in_place([](const Tensor& x, const Tensor& y) { return x.mul_(y); }))
      .def("__itruediv__", in_place([](const Tensor& x, const Tensor& y) { return x.div_(y); }))
      .def("__hash__", [](const Tensor& s) { return reinterpret_cast<uintptr_t>(s.impl()); })
      // Ops whose name is no attribute (vendors' "ns::op"): x.__getattr__("ns::op").
      .def("__getattr__", [](py::object self, const std::string& name) -> py::object {
        if (!has_op(name))
          throw py::attribute_error(fmt::format("'Tensor' object has no attribute '{}'", name));
        return py::cpp_function([self, name](py::args args, py::kwargs kwargs) {
          py::list all;
          all.append(self);
          for (py::handle a : args) all.append(a);
          return call_op(name, py::args(py::tuple(all)), kwargs);
        });
      });
  bind_dlpack(m, cls);
  // Every other catalog op as a method (x.relu(), x.sum(dim=[1]), x.add_(y))
  // and as a function of the _ops submodule (px.relu(x)), defined once here.
  py::module_ ops = m.def_submodule("_ops", "every catalog op as a function");
  for (const std::string& name : op_names()) {
    if (name.find("::") != std::string::npos) continue;
    ops.def(name.c_str(), [name](py::args args, py::kwargs kwargs) {
      return call_op(name, args, kwargs);
    });
    if (py::hasattr(cls, name.c_str())) continue;
    cls.def(name.c_str(), [name](py::object self, py::args args, py::kwargs kwargs) {
      py::tuple all(args.size() + 1);
      all[0] = self;
      for (size_t i = 0; i < args.size(); ++i) all[i + 1] = args[i];
      return call_op(name, py::args(all), kwargs);
    });
  }

  // Factories.
  m.def("tensor", [](py::handle data, std::optional<DType> dtype, std::optional<std::string> device,
                     bool requires_grad) {
          return finish(tensor_from_data(data, dtype, device), requires_grad);
        }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("from_numpy", [](py::array a) { return from_numpy(a); },
        "A cpu tensor sharing the array's memory (no copy); the array stays alive with it.");
  for (const char* name : {"zeros", "ones", "empty"}) {
    std::string n = name;
    m.def(name, [n](py::args size, std::optional<DType> dtype, std::optional<std::string> device,
                    bool requires_grad) {
            std::vector<int64_t> s = sizes_of(size);
            TensorOptions o = options_of(dtype, device);
            Tensor made = n == "zeros" ? zeros(s, o) : n == "ones" ? ones(s, o) : empty(s, o);
            return finish(made, requires_grad);
          }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
          py::arg("requires_grad") = false);
  }
  m.def("full", [](std::vector<int64_t> size, py::handle value, std::optional<DType> dtype,
                   std::optional<std::string> device, bool requires_grad) {
          Scalar v = scalar_of(value);
          DType fallback = py::isinstance<py::float_>(value) ? DType::F32
                           : py::isinstance<py::bool_>(value) ? DType::Bool : DType::I64;
          return finish(full(size, v, options_of(dtype, device, fallback)), requires_grad);
        }, py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("zeros_like", [](const Tensor& t) { return zeros(t.sizes(), {t.dtype(), t.device()}); });
  m.def("ones_like", [](const Tensor& t) { return ones(t.sizes(), {t.dtype(), t.device()}); });
  m.def("arange", [](py::handle start, py::handle end, py::handle step, std::optional<DType> dtype,
                     std::optional<std::string> device) {
          Scalar s0 = end.is_none() ? Scalar(int64_t(0)) : scalar_of(start);
          Scalar s1 = end.is_none() ? scalar_of(start) : scalar_of(end);
          std::optional<TensorOptions> o;
          if (dtype || device) o = options_of(dtype, device, s0.is_floating() || s1.is_floating() ? DType::F32 : DType::I64);
          return arange(s0, s1, scalar_of(step), o);
        }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
        py::arg("dtype") = py::none(), py::arg("device") = py::none());

  py::class_<Generator>(m, "Generator")
      .def(py::init<uint64_t>(), py::arg("seed") = 0)
      .def("manual_seed", [](Generator& g, uint64_t s) { g.manual_seed(s); return &g; },
           py::return_value_policy::reference)
      .def("initial_seed", &Generator::seed)
      .def_property("offset", &Generator::offset, &Generator::set_offset,
                    "stream positions drawn so far (set it to replay from there)");
  m.def("manual_seed", [](uint64_t s) { manual_seed(s); },
        "seeds the default generator of every device");
  m.def("default_generator", [](std::optional<std::string> device) -> Generator& {
    return default_generator(device ? Device::parse(*device) : Device());
  }, py::arg("device") = py::none(), py::return_value_policy::reference);
  for (const char* name : {"rand", "randn"}) {
    std::string n = name;
    m.def(name, [n](py::args size, Generator* gen, std::optional<DType> dtype,
                    std::optional<std::string> device, bool requires_grad) {
            std::vector<int64_t> s = sizes_of(size);
            TensorOptions o = options_of(dtype, device);
            Generator& g = gen ? *gen : default_generator(o.device);
            Tensor t;
            {
              py::gil_scoped_release release;
              t = n == "rand" ? rand(s, g, o) : randn(s, g, o);
            }
            return finish(t, requires_grad);
          }, py::kw_only(), py::arg("generator") = nullptr, py::arg("dtype") = py::none(),
          py::arg("device") = py::none(), py::arg("requires_grad") = false);
  }
  // In place, from the generator (default: self's device's): uniform_, normal_, bernoulli_.
  m.def("uniform_", [](const Tensor& self, double from, double to, Generator* gen) {
    py::gil_scoped_release release;
    return uniform_(self, from, to, gen ? *gen : default_generator(self.device()));
  }, py::arg("self"), py::arg("from_") = 0.0, py::arg("to") = 1.0, py::kw_only(),
     py::arg("generator") = nullptr);
  m.def("normal_", [](const Tensor& self, double mean, double std, Generator* gen) {
    py::gil_scoped_release release;
    return normal_(self, mean, std, gen ? *gen : default_generator(self.device()));
  }, py::arg("self"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(),
     py::arg("generator") = nullptr);
  m.def("bernoulli_", [](const Tensor& self, double p, Generator* gen) {
    py::gil_scoped_release release;
    return bernoulli_(self, p, gen ? *gen : default_generator(self.device()));
  }, py::arg("self"), py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = nullptr);
  m.def("randperm", [](int64_t n, Generator* gen) {
    std::vector<int64_t> p = randperm(n, gen ? *gen : default_generator());  // the cpu's
    Tensor t = empty({n}, TensorOptions(DType::I64));
    std::copy(p.begin(), p.end(), t.data<int64_t>());
    return t;
  }, py::arg("n"), py::kw_only(), py::arg("generator") = nullptr);

  m.def("_call_op", &call_op);
  m.def("_op_names", &op_names);
  m.def("_op_schemas", &op_schemas,
        "The schemas of an op's overloads, in the order calls try them.");
}

}  // namespace plexus::python
