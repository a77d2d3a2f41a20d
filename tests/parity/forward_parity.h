// The forward parity driver: every case of the conformance suite (and a few
// of its own, for ops the suite does not cover) run through plexus's cpu
// plugin and through libtorch's aten op of the same schema name, on the same
// bytes in the same layout, in every form the op has (functional, out=,
// in-place, out aliasing an input), and the two results compared.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine.h"
#include "suite.h"

namespace plexus::parity {

// One case variant where plexus and libtorch disagree.
struct Mismatch {
  std::string op, dtype, name, variant;  // op: the plexus form ("add.out")
  std::string message;                   // what differs, and which side the reference takes
  std::string id() const { return op + "/" + dtype + "/" + name + "/" + variant; }
};

// A deliberate difference from PyTorch 1.13: the case variants it covers
// (globs over the plexus form, dtype, case name and variant; each may list
// several globs separated by commas) are not held against plexus. `kind` names the row of docs/semantics.md that decides it.
struct Difference {
  const char* kind;
  const char* op;
  const char* dtype;
  const char* name;
  const char* variant;
};
// The table of them (forward_differences.cpp).
const std::vector<Difference>& differences();

// Cases libtorch cannot be called with at all (it crashes the process): not
// compared, and each entry must cover a case. Same globs as Difference.
const std::vector<Difference>& torch_crashes();

// A catalog op no aten op can be compared with, and why.
struct Unmatched {
  const char* op;
  const char* why;
};
const std::vector<Unmatched>& unmatched_ops();

// What a run found.
struct ParityReport {
  std::map<std::string, int> compared;  // plexus form -> case variants compared
  std::vector<Mismatch> mismatches;     // every disagreement, listed or not
  std::map<std::string, int> upcast;    // plexus form -> variants libtorch ran in float32 (no 16-bit kernel)
  std::map<std::string, int> accuracy;  // plexus form/dtype -> variants where only libtorch's rounding differs
  std::map<const Difference*, int> crashes_skipped;  // torch_crashes() entry -> cases left out
  std::set<std::string> notes;          // forms compared through aten's functional form
};

// Cases of ops the conformance suite does not cover (parity_cases.cpp).
std::vector<conformance::OpInfo> parity_op_infos();

// Runs every op the catalog defines (kernel ops and direct composites) whose
// cases the suite has, for every dtype it lists, on the cpu plugin.
ParityReport run_forward_parity(const conformance::Target& tg, const std::string& filter = "*");

// The entry of differences() that covers m, or null.
const Difference* listed(const Mismatch& m);

}  // namespace plexus::parity
