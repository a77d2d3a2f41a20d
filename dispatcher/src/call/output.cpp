// The output step of a call (call/output.h).
#include "call/output.h"

#include <fmt/format.h>

#include "call/overlap.h"

namespace plexus {

void check_written(const Operator& op, const Tensor& out, const OutputSpec& spec, Device device,
                   bool allow_expanded) {
  const std::string& name = op.schema().arguments[op.written_arg()].name;
  if (out.device() != device)
    fail_arg(name, "expected a tensor on {}, got one on {}", device.str(), out.device().str());
  if (!std::equal(out.sizes().begin(), out.sizes().end(), spec.sizes.begin(), spec.sizes.end()))
    fail_arg(name, "the result has shape {}, but the written tensor has shape {}",
             shape_str(spec.sizes), shape_str(out.sizes()));
  if (!can_cast(spec.dtype, out.dtype()))
    fail_arg(name, "the result type {} can't be cast to the written tensor's type {}",
             dtype_name(spec.dtype), dtype_name(out.dtype()));
  if (!allow_expanded && has_internal_overlap(out))
    fail_arg(name, "the written tensor has elements that share memory (an expanded view); "
                   "write into a tensor with distinct elements");
}

Tensor distinct_elements(const Tensor& t) {
  Shape sizes(t.sizes().begin(), t.sizes().end());
  for (size_t d = 0; d < sizes.size(); ++d)
    if (t.strides()[d] == 0 && sizes[d] > 1) sizes[d] = 1;
  return t.as_strided(sizes, t.strides(), t.storage_offset());
}

bool needs_temporary(const Operator& op, const Tensor& out, std::span<const Value> inputs,
                     size_t skip) {
  bool temp = false;
  auto check = [&](const Tensor& t, size_t i) {
    switch (overlap(out, t)) {
      case Overlap::None: return;
      case Overlap::Full:
        if (!op.elementwise()) temp = true;
        return;
      case Overlap::Partial:
        fail_arg(op.schema().arguments[i].name,
                 "this input partially overlaps the written tensor {}; some elements would be "
                 "read after being written. Pass a copy (.clone())",
                 op.schema().arguments[op.written_arg()].name);
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == skip) continue;
    if (inputs[i].tag() == Value::Tag::Tensor) check(inputs[i].to_tensor(), i);
    else if (inputs[i].tag() == Value::Tag::TensorList)
      for (const Tensor& t : inputs[i].to_tensor_list()) check(t, i);
  }
  return temp;
}

}  // namespace plexus
