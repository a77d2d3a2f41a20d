// `plexus bench`: runs plexus-bench, the benchmark harness, found beside this
// executable. The harness stays one program rather than a library linked into
// the CLI because its peers link oneDNN and OpenMP and are built for
// x86-64-v3, like the cpu plugin: linking them here would make every
// `plexus devices` load oneDNN and stop the CLI on older CPUs. Exec keeps one
// harness, one argument parser, and its exit status and terminal as they are.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "commands.h"

namespace plexus::cli {

int bench(const std::vector<std::string>& args) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path harness = self.parent_path() / "plexus-bench";
  if (ec || access(harness.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "plexus bench: the benchmark harness %s is not there: it is built with the "
                 "benchmarks (PLEXUS_BUILD_BENCH=ON) and installed beside plexus\n",
                 harness.c_str());
    return 2;
  }
  std::vector<char*> argv;
  std::string argv0 = harness.string();
  argv.push_back(argv0.data());
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  execv(argv0.c_str(), argv.data());
  std::fprintf(stderr, "plexus bench: cannot run %s: %s\n", argv0.c_str(), std::strerror(errno));
  return 2;
}

}  // namespace plexus::cli
