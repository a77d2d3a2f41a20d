// Running one case variant on a device: placing inputs in device memory in the
// case's layouts (through the backend's raw copies, never through a kernel),
// boxing the arguments by schema, calling the op, reading results back and
// comparing them with the reference element by element.
#pragma once

#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/op.h"
#include "plexus/tensor.h"
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
};
Comparison compare(const Expected& expected, const ref::Tensor& got, const Tolerance& tol);

}  // namespace plexus::conformance
