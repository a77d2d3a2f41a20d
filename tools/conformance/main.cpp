// plexus-conformance: proves a backend plugin correct against an independent
// double-precision reference, and tells its vendor exactly what is wrong.
#include <CLI/CLI.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "crash.h"
#include "plexus/env.h"
#include "plexus/error.h"
#include "plexus/log.h"
#include "runner.h"

int main(int argc, char** argv) {
  plexus::conformance::Options o;
  CLI::App app{"plexus-conformance: run the conformance suite against one backend plugin.\n"
               "Each case id is op/dtype/case/variant (runtime checks: runtime/<check>);\n"
               "every failure prints the command that repeats it alone."};
  app.set_version_flag("--version", std::string("plexus-conformance ") + PLEXUS_VERSION_STRING);
  app.add_option("--plugin", o.plugin,
                 "Plugin to test: a name on the plugin search path, or the path of its manifest, "
                 "library or directory")
      ->required();
  int device = -1;
  app.add_option("--device", device,
                 "Device index of the plugin's backend (default: every device, one after the "
                 "other; the reports of device N > 0 get .deviceN before their extension)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--filter", o.filter, "Run only the cases whose id matches this glob (* and ?)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the generated values")->capture_default_str();
  app.add_option("--junit", o.junit, "Write a JUnit XML report to this file");
  app.add_option("--json", o.json, "Write a JSON report to this file");
  app.add_option("--xfail", o.xfail,
                 "Expected failures: lines of '<op> <dtype> <reason>' (runtime checks: 'runtime <check> <reason>'); "
                 "default: the plugin's own <name>.xfail beside its manifest, if it ships one");
  app.add_flag("--no-xfail", o.no_xfail, "Ignore the expected failures the plugin ships");
  app.add_flag("--list", o.list, "Print the ids of the cases that would run, and exit");
  app.add_option("--failures", o.failures_shown,
                 "Failures printed per op and dtype (every one is in --json); 0: all")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--grad", o.grad,
               "Check gradients instead of results: every differentiable op in float32 and "
               "float64, backward on the device against central differences of the reference");
  app.add_flag("--composites", o.composites,
               "Check the catalog's composite defaults instead of the plugin's kernels: every "
               "op and dtype the plugin has no kernel for but the catalog has a composite for, "
               "run through that composite on the plugin's device");
  CLI11_PARSE(app, argc, argv);

  o.executable = argv[0];
  o.progress_tty = isatty(STDOUT_FILENO) != 0;
  // The suite reports problems itself; loader warnings would repeat them.
  if (!plexus::env_var("PLEXUS_LOG_LEVEL")) plexus::logging::set_level(spdlog::level::err);
  plexus::conformance::install_crash_handler();
  // A run of the sweep over every device, started for device N > 0 below.
  if (const char* sweep = std::getenv("PLEXUS_CONFORMANCE_SWEEP"); sweep && device > 0) {
    o.json = plexus::conformance::device_report_path(o.json, device);
    o.junit = plexus::conformance::device_report_path(o.junit, device);
  }
  int count = 0, rc = 0;
  try {
    o.device = device < 0 ? 0 : device;
    rc = plexus::conformance::run(o, &count);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plexus-conformance: %s\n", e.what());
    return 1;
  }
  if (device >= 0 || o.list || count <= 1 || (rc != 0 && rc != 1)) return rc;
  // Every other device of the plugin, each in a process of its own (a
  // plugin loads once per process), with the same arguments and --device N.
  setenv("PLEXUS_CONFORMANCE_SWEEP", "1", 1);
  for (int d = 1; d < count; ++d) {
    std::vector<std::string> args(argv, argv + argc);
    args.push_back("--device");
    args.push_back(std::to_string(d));
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    std::fflush(stdout);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, cargs.data(), environ) != 0) {
      std::fprintf(stderr, "plexus-conformance: could not start the run for device %d\n", d);
      return 1;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int child = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (child != 0) rc = 1;
  }
  return rc;
}
