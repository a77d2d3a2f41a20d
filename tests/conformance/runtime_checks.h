// The runtime checks: what a backend must do besides computing right.
// properties, alloc_zero, alloc_too_big, copies (every direction, odd sizes
// and offsets), memset, streams, events, synchronize, kernel_error, and the
// graph checks (graph_checks.cpp): graph_chains, graph_seed_step.
#pragma once

#include <string>
#include <vector>

#include "engine.h"
#include "runner.h"

namespace plexus::conformance {

// "runtime/properties", ... in the order they run.
std::vector<std::string> runtime_check_ids();
// Runs the checks whose id matches `filter`; each gives one Result with op
// "runtime" and the check's name.
std::vector<Result> run_runtime_checks(const Target& target, const std::string& filter);

// Thrown by a check that does not apply to this backend.
struct NotApplicable {
  std::string why;
};

// Random elementwise chains through plexus::compile on the target, against
// the same chains run eagerly there ("" when they agree).
std::string check_graph_chains(const Target& target);
// The seed's training step (10-64-32-1, capturable Adam) compiled on the
// target against the same step run eagerly there.
std::string check_graph_seed_step(const Target& target);
// The seed network's forward compiled (differentiable), trained with the
// loss, backward and Adam run eagerly around it, against the eager network.
std::string check_graph_backward(const Target& target);

}  // namespace plexus::conformance
