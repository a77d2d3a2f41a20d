// What the binding files of the _plexus extension module share.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "plexus/tensor.h"

namespace py = pybind11;

namespace plexus::python {

// A Python bool, int or float (not a Tensor).
bool is_number(py::handle o);
// The number o holds, keeping its kind; TypeError when o is no number.
Scalar scalar_of(py::handle o);

// Every catalog op by its Python name ("add", "relu_", "myvendor::fused_gelu").
bool has_op(const std::string& name);
std::vector<std::string> op_names();
std::vector<std::string> op_schemas(const std::string& name);
// Calls the op `name` (trying its overloads) with Python arguments; the GIL
// is released while it runs.
py::object call_op(const std::string& name, py::args args, py::kwargs kwargs);

void bind_tensor(py::module_& m);
void bind_runtime(py::module_& m);
void bind_training(py::module_& m);
void bind_dlpack(py::module_& m, py::class_<Tensor>& cls);

}  // namespace plexus::python
