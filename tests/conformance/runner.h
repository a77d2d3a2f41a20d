// plexus-conformance's engine: loads one plugin, runs every case of every op
// it registered (and the runtime checks) on one of its devices, and reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/dtype.h"

namespace plexus::conformance {

struct Options {
  std::string plugin;             // a plugin name on the search path, or a path to its manifest/library/directory
  int device = 0;                 // device index within the plugin's backend
  std::string filter = "*";       // glob over case ids "op/dtype/case/variant"
  uint64_t seed = 20261122;       // the run's seed
  std::string junit, json;        // report files (empty: none)
  // Expected-failures file. Empty: the one the plugin ships beside its
  // manifest (<name>.xfail), if any, for a results run (not --grad or
  // --composites), unless no_xfail.
  std::string xfail;
  bool no_xfail = false;
  bool list = false;              // print the case ids and exit
  int failures_shown = 3;         // failures printed per op and dtype (0: all)
  std::string executable = "plexus-conformance";  // for the re-run commands
  bool progress_tty = false;      // rewrite one progress line (a terminal) instead of printing a line per op
  bool grad = false;              // check gradients (variant "grad") instead of results
  // Check the catalog's composite defaults instead of the plugin's kernels:
  // the ops (and dtypes) the plugin registers no kernel for but the catalog
  // has a composite for, run on the plugin's device through that composite,
  // which calls the plugin's other kernels.
  bool composites = false;
};

enum class Status { Pass, Fail, Unsupported, XFail, XPass };
const char* status_name(Status s);  // "pass", "fail", "unsupported", "xfail", "xpass"

// One executed case (or one unsupported op/dtype pair, or one runtime check).
struct Result {
  std::string op;       // kernel op ("add.out") or "runtime.<check>"
  std::string dtype;    // "float32"; "-" for runtime checks
  std::string name;     // case name; empty for an unsupported pair
  std::string variant;  // "functional", "out", "inplace", "out_self", "out_other", "threads", "grad"
  std::string shape;    // the inputs: "self=[13, 17] transposed, other=[17]"
  Status status = Status::Pass;
  double max_abs_err = 0, max_ulp_err = 0;
  std::string message;  // why it failed / was skipped
  double seconds = 0;
  std::string id() const;  // "op/dtype/name/variant"
};

// Runs the suite as `opts` says, on device opts.device. Returns the process
// exit status: 0 when everything passed, 1 on any failure (xpass included), 2
// for a usage error, 77 when the plugin has no device here (everything
// skipped, with the reason). *device_count, when given, receives how many
// devices the plugin's backend has (0 when it did not get that far).
int run(const Options& opts, int* device_count = nullptr);

// A report path for device `device` of a sweep over every device: device 0
// keeps `path`; others get ".device<N>" before the extension
// ("out/report.json" -> "out/report.device1.json"). Empty stays empty.
std::string device_report_path(const std::string& path, int device);

// s quoted for a POSIX shell when it needs quoting.
std::string shell_quote(const std::string& s);

// Glob match with * and ? (used for --filter and the xfail file).
bool glob_match(std::string_view pattern, std::string_view text);

// One line of an expected-failures file: `<op>[/<case>] <dtype> <reason>`,
// op, case and dtype being globs (the case part defaults to every case).
struct XFailEntry {
  std::string op, dtype, reason;
  std::string op_glob() const { return op.substr(0, op.find('/')); }
  std::string case_glob() const { return op.find('/') == std::string::npos ? "*" : op.substr(op.find('/') + 1); }
  // True when the entry covers the case `name` ("" for a whole op/dtype) of op/dtype.
  bool covers(const std::string& op_name, const std::string& dt, const std::string& name) const;
  int line = 0;
  bool matched = false;  // some op/dtype of the catalog or the runtime checks matched it
  bool failed = false;   // some case it covers failed
};
// Parses an expected-failures file ("<op> <dtype> <reason>" per line, # comments).
// Throws plexus::Error(InvalidArgument) naming the line of a malformed entry.
std::vector<XFailEntry> parse_xfail(const std::string& text, const std::string& path);

}  // namespace plexus::conformance
