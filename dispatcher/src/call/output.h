// The output step of a call: the tensor an in-place or out call writes is
// checked against the meta function's spec, and written through a temporary
// when an input overlaps it (see "Note [out= and aliasing]" in
// dispatcher/README.md).
#pragma once

#include <span>

#include "plexus/meta.h"
#include "plexus/op.h"
#include "plexus/value.h"

namespace plexus {

// Throws unless `out` (the written tensor) is on `device`, has the spec's
// sizes, can hold the spec's dtype, and (unless `allow_expanded`) has no two
// elements in the same memory.
void check_written(const Operator& op, const Tensor& out, const OutputSpec& spec, Device device,
                   bool allow_expanded = false);

// The view of t without its broadcast dims (stride 0 becomes size 1): each
// distinct element once, for ops that write one value everywhere.
Tensor distinct_elements(const Tensor& t);

// True when the kernel must write into a temporary and the result be copied:
// an input is exactly the output of an op that is not elementwise. Throws
// naming the input when one partially overlaps the output. `skip` is the index
// of an input allowed to be the output (in-place self), SIZE_MAX for none.
bool needs_temporary(const Operator& op, const Tensor& out, std::span<const Value> inputs,
                     size_t skip);

}  // namespace plexus
