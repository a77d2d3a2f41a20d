// The suite's output: the op x dtype table, coverage, the summary line, and
// the JUnit and JSON reports.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runner.h"

namespace plexus::conformance {

// One op/dtype pair of the catalog as this run saw it.
struct CoverageCell {
  bool in_catalog = false;  // the catalog lists the dtype for the op
  bool registered = false;  // the plugin registered a kernel for it
  bool ran = false;         // at least one case of it ran
  bool composite = false;   // run through the catalog's composite (--composites)
};

struct ReportInfo {
  std::string plugin, plugin_version, backend, device, device_name;
  std::string skip_reason;  // set when the plugin has no device here
  uint64_t seed = 0;
  double seconds = 0;
  std::string rerun;                                            // command prefix that repeats a case
  std::vector<std::string> op_order;                            // kernel ops in catalog order
  std::map<std::pair<std::string, std::string>, CoverageCell> cells;  // (op, dtype)
  bool composites = false;  // a --composites run
  std::string filter = "*";  // the run's --filter: a narrower one leaves coverage unmeasured
};

struct Counts {
  size_t passed = 0, failed = 0, unsupported = 0, xfail = 0, xpass = 0;
  size_t skipped() const { return unsupported + xfail; }
};
Counts count(const std::vector<Result>& results);

// Pairs of the catalog the run covered (registered and run), and all of them.
std::pair<size_t, size_t> coverage(const ReportInfo& info);

// The table, coverage and the last line "N passed, N failed, N skipped".
void print_summary(std::FILE* f, const ReportInfo& info, const std::vector<Result>& results);
// Writes --junit and --json when asked; reports a write failure on stderr.
void write_reports(const Options& opts, const ReportInfo& info, const std::vector<Result>& results);

std::string junit_xml(const ReportInfo& info, const std::vector<Result>& results);
std::string json_report(const ReportInfo& info, const std::vector<Result>& results);

}  // namespace plexus::conformance
