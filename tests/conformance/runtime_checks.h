// The runtime checks: what a backend must do besides computing right.
// properties, alloc_zero, alloc_too_big, copies (every direction, odd sizes
// and offsets), memset, streams, events, synchronize, kernel_error.
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

}  // namespace plexus::conformance
