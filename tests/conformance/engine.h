// Running one case variant on a device: placing inputs in device memory in the
// case's layouts (through the backend's raw copies, never through a kernel),
// boxing the arguments by schema, calling the op, reading results back and
// comparing them with the reference element by element.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/op.h"
#include "plexus/tensor.h"
#include "plexus/value.h"
#include "runner.h"
#include "suite.h"

namespace plexus::conformance {

// The device under test.
struct Target {
  Device device;
  DeviceBackend* backend = nullptr;
  std::string backend_name;
  bool composites = false;  // a --composites run: the ops run through catalog composites
};

// The forms of an op that share one kernel.
struct OpForms {
  const Operator* kernel = nullptr;      // what kernels register on ("add.out", "copy_")
  const Operator* functional = nullptr;  // "add.Tensor"
  const Operator* inplace = nullptr;     // "add_.Tensor", "copy_"
  const Operator* out = nullptr;         // "add.out"
  const Operator* direct = nullptr;      // a direct op that writes several tensors ("adam_step_")
};
// The forms of kernel op `kernel` in the catalog.
OpForms forms_of(const Operator& kernel);

// The variants of a case that apply to these forms, in the order they run:
// "functional", "out", "inplace" (when the first tensor argument can hold the
// expected result), "out_self" (out = the first tensor argument), "out_other"
// (out = the second tensor argument, for elementwise ops); "direct" alone for
// a direct op that writes several tensors (each written one is compared).
std::vector<std::string> variants_of(const OpForms& forms, const Case& c, const Expected* expected);

// The logical values the reference sees for a case's tensor arguments (after
// Expanded repeats its values along the broadcast dim).
Inputs logical_inputs(const Case& c);
// "self=[13, 17] transposed, other=[17]"
std::string describe_inputs(const Case& c);

// Runs one variant of a case whose expected result is `expected` (ignored when
// the case expects an error) and fills the status, errors and message of `r`.
void run_variant(const Target& target, const OpForms& forms, const Case& c,
                 const std::string& variant, const Expected* expected, Result& r);

// Whether the gradient check (plexus-conformance --grad) applies to a case:
// a differentiable op's functional form, float32 or float64, random values
// (not exact, special or tie cases, not stress), at most 20000 input elements.
bool grad_applies(const OpForms& forms, const Case& c, DType dt);
// Checks the gradient of a case's functional call on the target against
// central differences of the reference, along one random direction of the
// inputs and one random seed gradient (PyTorch's "fast mode" gradcheck).
void run_grad(const Target& target, const OpForms& forms, const Case& c, Result& r);

// The outcome of comparing values read back with the expected ones.
struct Comparison {
  bool ok = true;
  double max_abs_err = 0, max_ulp_err = 0;
  std::string message;  // the first mismatch, when not ok
  int64_t first_bad = -1;  // its flat index in the result; -1 when all agree
};
Comparison compare(const Expected& expected, const ref::Tensor& got, const Tolerance& tol);

// ---- One call, set up but not run (for the runner and the libtorch parity test)

// A tensor in device memory with the bytes its storage was given.
struct Placed {
  Tensor view;
  std::vector<uint8_t> bytes;  // the storage as written
  std::vector<bool> covered;   // per storage element: one of the view's elements
};
// Places logical `values` on the target in `layout`, with `pad` poison
// elements before and after; everything outside the view is poison too.
Placed place(const Target& tg, const ref::Tensor& values, uint32_t layout, int64_t pad, Rng& poison);
// The bytes of t's whole storage, read back with the backend's raw copies.
std::vector<uint8_t> read_storage(const Target& tg, const Tensor& t);
// The logical values of view `t` from its storage's bytes.
ref::Tensor decode_view(const Tensor& t, const std::vector<uint8_t>& bytes);

// The arguments of one call and everything they borrow.
struct Boxed {
  std::vector<Value> values;
  std::deque<Tensor> tensors;
  std::deque<std::vector<Tensor>> lists;
  std::deque<std::vector<int64_t>> ints;
  std::deque<std::string> strings;
};

// A case's tensor arguments placed on the target, the written tensor, and the
// boxed arguments of the call (which refer into `b`: keep it where it is).
struct PreparedCall {
  std::map<std::string, Placed> placed;
  std::map<std::string, std::vector<Placed>> placed_lists;
  std::optional<Placed> out;
  std::string written_name;
  Boxed b;
  // The placed tensor argument `name` (the one it aliases, for an alias).
  Placed& tensor_named(const Case& c, const std::string& name);
};
// Places a case's inputs for `variant` of `op` ("functional", "out", "inplace",
// "out_self", "out_other") and boxes its arguments; `expected` sizes the out.
void prepare_call(const Target& tg, const Operator& op, const Case& c, const std::string& variant,
                  const Expected* expected, Rng& poison, PreparedCall& call);

}  // namespace plexus::conformance
