// Calling libtorch's aten ops by schema name through its boxed dispatcher,
// with the arguments of a conformance case: the forward parity test's bridge
// from plexus's catalog (whose schemas use PyTorch's names) to libtorch.
// Include parity/torch_bridge.h (or torch) before Catch, as it says.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>
#undef CHECK

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine.h"
#include "plexus/op.h"
#include "suite.h"

namespace plexus::parity {

// The aten op spelled like plexus op `name` ("add.Tensor" is aten::add with
// overload "Tensor"); nullopt when libtorch has none.
std::optional<c10::OperatorHandle> find_aten(const std::string& name);

// True when aten's op for `plexus_name` is one of its internal gradient ops,
// which assume contiguous inputs of one shape (autograd calls them so; given
// strided or broadcast ones they return wrong values or fail).
bool aten_internal(const std::string& plexus_name);

c10::ScalarType torch_dtype(DType t);
// libtorch's dtype as plexus's; nullopt for one plexus lacks (complex, ...).
std::optional<DType> plexus_dtype(c10::ScalarType t);

// A torch tensor over a copy of p's storage bytes, laid out as p.view is
// (sizes, strides, storage offset): the same bytes plexus reads.
torch::Tensor torch_view(const conformance::Placed& p);
// The logical values of a torch tensor (integers exactly, floats as doubles).
ref::Tensor ref_values(const torch::Tensor& t);

// The torch tensors of a prepared call, by argument name: aliases share one
// tensor, and `out` is the written tensor of an out form (undefined otherwise).
struct TorchTensors {
  std::map<std::string, torch::Tensor> tensors;
  std::map<std::string, std::vector<torch::Tensor>> lists;
  torch::Tensor out;
  std::string written;  // the argument an in-place or out-aliasing form writes
};
TorchTensors torch_tensors(const conformance::Case& c, conformance::PreparedCall& call,
                           const std::string& variant);

// The boxed arguments of aten op `schema` for case c: tensors from `t`, other
// values converted to the aten argument's type (a single int for an int[N]
// repeats N times, as plexus's schema `ps` says), defaults from aten's schema.
// Throws std::runtime_error naming an argument it cannot fill.
torch::jit::Stack aten_stack(const c10::FunctionSchema& schema, const Schema& ps,
                             const conformance::Case& c, const TorchTensors& t);

}  // namespace plexus::parity
