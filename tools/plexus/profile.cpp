// `plexus profile PROGRAM ARGS...`: runs the program with PLEXUS_PROFILE set to
// a fresh directory, so every process of it that uses libplexus records its ops
// and writes them there at exit (plexus/profiler.h); then prints one table of
// all of them and returns the program's exit status. The table goes to stderr
// (or -o FILE), as time(1) and strace(1) do, so the program's own stdout stays
// as it would be.
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>

#include "commands.h"

extern char** environ;

namespace plexus::cli {
namespace {

namespace fs = std::filesystem;

struct OpTotal {
  std::string op, device;
  uint64_t calls = 0, total_ns = 0, fallbacks = 0;
  bool backward = false;  // autograd's backward pass dispatched it
  const char* pass() const { return backward ? "backward" : "forward"; }
};

// How the program ended.
struct Outcome {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  std::string describe(const std::string& program) const {
    if (signal)
      return fmt::format("{} was killed by signal {} ({})", program, signal, strsignal(signal));
    return fmt::format("{} exited with status {}", program, exit_code);
  }
};

// A temporary directory, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "plexus-profile-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error(fmt::format("cannot create {}: {}", tmpl, std::strerror(errno)));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The current environment with PLEXUS_PROFILE set to `dir`.
std::vector<std::string> environment_with(const fs::path& dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PLEXUS_PROFILE=", 15) != 0) env.emplace_back(*e);
  env.push_back("PLEXUS_PROFILE=" + dir.string());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs the program and waits for it; Ctrl-C reaches the program, not us, so
// the table is still printed after it stops. Returns errno when it cannot start.
int run_program(std::vector<std::string> command, const fs::path& dir, Outcome& outcome) {
  std::vector<std::string> env = environment_with(dir);
  std::vector<char*> argv = c_strings(command), envp = c_strings(env);
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (err == 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status))
      outcome.signal = WTERMSIG(status);
    else
      outcome.exit_code = WEXITSTATUS(status);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return err;
}

// The records of every process, summed per op, device and pass, longest first.
std::vector<OpTotal> read_records(const fs::path& dir, size_t& processes) {
  std::map<std::tuple<std::string, std::string, bool>, OpTotal> sums;
  processes = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream f(e.path());
    nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j["records"].is_array()) {
      std::fprintf(stderr, "plexus profile: %s is not a profile (skipped)\n", e.path().c_str());
      continue;
    }
    ++processes;
    for (const nlohmann::json& r : j["records"]) {
      const bool backward = r.value("backward", false);
      OpTotal& t = sums[{r.value("op", "?"), r.value("device", "?"), backward}];
      t.op = r.value("op", "?");
      t.device = r.value("device", "?");
      t.backward = backward;
      t.calls += r.value("calls", uint64_t{0});
      t.total_ns += r.value("total_ns", uint64_t{0});
      t.fallbacks += r.value("fallbacks", uint64_t{0});
    }
  }
  std::vector<OpTotal> out;
  for (auto& [key, t] : sums) out.push_back(t);
  std::sort(out.begin(), out.end(),
            [](const OpTotal& a, const OpTotal& b) { return a.total_ns > b.total_ns; });
  return out;
}

double mean_us(const OpTotal& t) {
  return t.calls ? t.total_ns / 1e3 / t.calls : 0.0;
}

std::string table(const std::vector<OpTotal>& ops, const std::string& program,
                  const Outcome& outcome, size_t processes) {
  std::string s = fmt::format("plexus profile: {}\n", outcome.describe(program));
  if (processes == 0)
    return s +
           "No plexus ops were recorded: the program never called one, or it did not exit "
           "normally (a crash or _exit skips writing the profile).\n";
  if (processes > 1)
    s += fmt::format("{} processes used plexus; their ops are summed.\n", processes);
  size_t wop = 2, wdev = 6;
  for (const OpTotal& t : ops) {
    wop = std::max(wop, t.op.size());
    wdev = std::max(wdev, t.device.size());
  }
  s += fmt::format("{:<{}}  {:<{}} {:<8} {:>10} {:>12} {:>12} {:>10}\n", "op", wop, "device",
                   wdev, "pass", "calls", "total ms", "mean us", "fallbacks");
  for (const OpTotal& t : ops)
    s += fmt::format("{:<{}}  {:<{}} {:<8} {:>10} {:>12.3f} {:>12.3f} {:>10}\n", t.op, wop,
                     t.device, wdev, t.pass(), t.calls, t.total_ns / 1e6, mean_us(t),
                     t.fallbacks);
  return s;
}

std::string json(const std::vector<OpTotal>& ops, const std::vector<std::string>& command,
                 const Outcome& outcome, size_t processes) {
  nlohmann::json list = nlohmann::json::array();
  for (const OpTotal& t : ops)
    list.push_back({{"op", t.op},
                    {"device", t.device},
                    {"calls", t.calls},
                    {"total_ms", t.total_ns / 1e6},
                    {"mean_us", mean_us(t)},
                    {"fallbacks", t.fallbacks},
                    {"pass", t.pass()}});
  nlohmann::json j = {
      {"command", command},
      {"exit_status", outcome.signal ? nlohmann::json() : nlohmann::json(outcome.exit_code)},
      {"signal", outcome.signal ? nlohmann::json(outcome.signal) : nlohmann::json()},
      {"processes", processes},
      {"ops", list}};
  return j.dump(2) + "\n";
}

}  // namespace

int profile(const std::vector<std::string>& command, bool as_json, const std::string& output) {
  if (command.empty()) {
    std::fprintf(stderr,
                 "plexus profile: name the program to run: plexus profile [--json] [-o FILE] "
                 "PROGRAM [ARGS...]\n");
    return 2;
  }
  // Opened first: a bad path is reported before the program runs, not after.
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) {
      std::fprintf(stderr, "plexus profile: -o %s: cannot write to that file: %s\n", output.c_str(),
                   std::strerror(errno));
      return 2;
    }
  }
  std::string text;
  Outcome outcome;
  try {
    TempDir dir;
    if (int err = run_program(command, dir.path, outcome)) {
      std::fprintf(stderr, "plexus profile: cannot run '%s': %s\n", command[0].c_str(),
                   std::strerror(err));
      if (file.is_open()) fs::remove(output);  // nothing to report: leave no empty file
      return err == ENOENT ? 127 : 126;        // as a shell reports a command it cannot run
    }
    size_t processes = 0;
    std::vector<OpTotal> ops = read_records(dir.path, processes);
    text = as_json ? json(ops, command, outcome, processes)
                   : table(ops, command[0], outcome, processes);
  } catch (const std::exception& e) {  // the temporary directory: creating or reading it
    std::fprintf(stderr, "plexus profile: %s\n", e.what());
    return 2;
  }
  if (file.is_open()) {
    file << text;
    file.close();
    if (!file) std::fprintf(stderr, "plexus profile: -o %s: the write failed\n", output.c_str());
  } else {
    std::fputs(text.c_str(), stderr);
  }
  return outcome.signal ? 128 + outcome.signal : outcome.exit_code;
}

}  // namespace plexus::cli
