// The plexus CLI, run as a user would: exit codes, tables, and JSON that parses.
#include <catch2/catch.hpp>

#include "plexus/plugin.h"
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#ifdef PLEXUS_CLI_PATH
namespace {
struct Run {
  int status;
  std::string out;
};

// Runs a shell command; stdout only (stderr goes to the test log).
Run run_command(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Runs the CLI with arguments.
Run run(const std::string& args) { return run_command(std::string(PLEXUS_CLI_PATH) + " " + args); }
}  // namespace

TEST_CASE("plexus --version prints the version") {
  Run r = run("--version");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("plexus ") && Catch::Contains("."));
}

TEST_CASE("plexus devices --json lists the cpu with its properties") {
  Run r = run("devices --json");
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["plugins"].is_array());
  auto host = j["host"];
  REQUIRE(host["devices"].size() == 1);
  CHECK(host["devices"][0]["device"] == "cpu");
  CHECK(host["devices"][0]["type"] == "cpu");
  CHECK(host["devices"][0]["memory_bytes"].get<uint64_t>() > 0);
}

#ifdef PLEXUS_TEST_PLUGIN_DIR
TEST_CASE("plexus devices --json and doctor report a plugin found through PLEXUS_PLUGIN_PATH") {
  const std::string dir = std::string(PLEXUS_TEST_PLUGIN_DIR) + "/fixture_ok";
  std::string env = "PLEXUS_PLUGIN_PATH=" + dir + " ";
  std::string cli = PLEXUS_CLI_PATH;
  Run r = run_command(env + cli + " devices --json");
  REQUIRE(r.status == 0);
  auto plugins = nlohmann::json::parse(r.out)["plugins"];
  auto it = std::find_if(plugins.begin(), plugins.end(),
                         [](const nlohmann::json& p) { return p["name"] == "fixture_ok"; });
  REQUIRE(it != plugins.end());
  auto p = *it;
  CHECK(p["name"] == "fixture_ok");
  CHECK(p["status"] == "loaded");
  // Built against the live plugin.h: its ABI is the header's.
  CHECK(p["abi"] == std::to_string(PLEXUS_ABI_MAJOR) + "." + std::to_string(PLEXUS_ABI_MINOR));
  CHECK_THAT(p["path"].get<std::string>(), Catch::EndsWith("libplexus-fixture_ok.so"));
  CHECK(p["devices"].empty());
  CHECK_THAT(p["reason"].get<std::string>(), Catch::Contains("no devices"));

  Run d = run_command(env + cli + " doctor");
  CHECK(d.status == 0);
  CHECK_THAT(d.out, Catch::Contains(dir) &&
                        Catch::Contains("ok        fixture_ok") &&
                        Catch::Contains("0 devices"));
}

TEST_CASE("plexus doctor --probe reports a plugin whose init crashes, and the others") {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("plexus-cli-probe-" + std::to_string(getpid()) + ".toml"))
                               .string();
  std::ofstream(file) << "[plugins]\npaths = [\"" << PLEXUS_TEST_PLUGIN_DIR
                      << "/fixture_init_crashes\", \"" << PLEXUS_TEST_PLUGIN_DIR
                      << "/fixture_ok\"]\nuse_environment = false\nuse_default_paths = false\n";
  Run d = run("doctor --probe --config " + file);
  CHECK(d.status == 0);  // doctor reports; it does not fail
  CHECK_THAT(d.out, Catch::Contains("FAILED    fixture_init_crashes: loading it crashed a probe "
                                    "process (plugins.probe) with signal 6") &&
                        Catch::Contains("ok        fixture_ok") &&
                        Catch::Contains("1 plugin(s) failed to load"));
  Run j = run("doctor --probe --json --config " + file);
  REQUIRE(j.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(j.out);  // the loop below reads into it
  for (const auto& p : doc["plugins"]) CHECK(p["load_ms"].get<double>() > 0);
  std::filesystem::remove(file);
}

#ifdef PLEXUS_TEST_CPU_PLUGIN
// Note [Partial backends]: an accelerator with almost no kernels is not the
// default over the cpu plugin; chosen explicitly, explain() says what it lacks.
TEST_CASE("plexus doctor: a device whose backend lacks most kernels is not the default") {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("plexus-cli-partial-" + std::to_string(getpid()) + ".toml"))
                               .string();
  auto doctor = [&](const std::string& runtime) {
    std::ofstream(file) << "[plugins]\npaths = [\"" << PLEXUS_TEST_PLUGIN_DIR
                        << "/fixture_dev_a\"]\n[options.fixture_dev_a]\nkind = "
                           "\"accelerator\"\n[runtime]\n"
                        << runtime << "\n";
    return run("doctor --config " + file);
  };
  Run policy = doctor("");
  CHECK_THAT(policy.out, Catch::Contains("chosen: cpu (cpu device") &&
                             Catch::Contains("fixture_dev_a:0: its backend has only kernels for "
                                             "0 of the ") &&
                             Catch::Contains("policies rank such devices below those with more"));
  Run chosen = doctor("device = \"fixture_dev_a:0\"");
  CHECK_THAT(chosen.out, Catch::Contains("chosen: fixture_dev_a:0 (accelerator device") &&
                             Catch::Contains("note: fixture_dev_a:0 has kernels for 0 of the ") &&
                             Catch::Contains("run on the cpu under fallback policy cpu"));
  std::filesystem::remove(file);
}
#endif
#endif

TEST_CASE("plexus devices prints a table") {
  Run r = run("devices");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("DEVICE") && Catch::Contains("\ncpu "));
}

#ifdef PLEXUS_CLI_PATH
TEST_CASE("plexus devices marks the device the config chooses, or says why none is") {
  Run r = run("devices");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("\ncpu *") &&
                        Catch::Contains("* the device the config chooses"));
  Run j = run("devices --json");
  REQUIRE(j.status == 0);
  CHECK(nlohmann::json::parse(j.out)["chosen_device"] == "cpu");

  const std::string cli = std::string("PLEXUS_DEVICE=cpu:7 ") + PLEXUS_CLI_PATH;
  Run none = run_command(cli + " devices");
  REQUIRE(none.status == 0);
  CHECK_THAT(none.out, Catch::Contains("no device is chosen: device cpu:7") &&
                           !Catch::Contains(" *"));
  auto doc = nlohmann::json::parse(run_command(cli + " devices --json").out);
  CHECK(doc["chosen_device"].is_null());
  CHECK_THAT(doc["no_device_chosen"].get<std::string>(), Catch::Contains("cpu:7"));
}
#endif

TEST_CASE("plexus ops --json holds every op with a schema that names it") {
  Run r = run("ops --json");
  REQUIRE(r.status == 0);
  auto ops = nlohmann::json::parse(r.out)["ops"];
  REQUIRE(ops.size() > 5);
  bool found_add_out = false;
  for (auto& op : ops) {
    std::string name = op["name"], schema = op["schema"];
    CHECK(schema.rfind(name + "(", 0) == 0);
    if (name == "add.out") {
      found_add_out = true;
      CHECK(op["kind"] == "out");
      CHECK(op["kernel_op"] == "add.out");
    }
  }
  CHECK(found_add_out);
}

TEST_CASE("plexus ops says how autograd treats each op") {
  Run r = run("ops --json");
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> grad;
  auto j = nlohmann::json::parse(r.out);  // kept: the loop walks into it
  for (auto& op : j["ops"]) grad[op["name"].get<std::string>()] = op["differentiable"];
  CHECK(grad.at("add.out") == "yes");
  CHECK(grad.at("add.Tensor") == "yes");
  CHECK(grad.at("mul_.Tensor") == "yes");
  CHECK(grad.at("eq.Tensor_out") == "no");
  CHECK(grad.at("argmax.out") == "no");
  CHECK(grad.at("matmul") == "composite");
  CHECK(grad.at("conv2d.out") == "yes");
  // The gradient ops have no rules of their own (no second derivatives yet).
  CHECK(grad.at("threshold_backward.out") == "missing");
  Run m = run("ops");
  REQUIRE(m.status == 0);
  CHECK_THAT(m.out, Catch::Contains("  grad\n") && Catch::Contains("grad       yes: a derivative rule"));
}

#ifdef PLEXUS_MUTANT_CONTROL_DIR
// The mutant_control plugin: one device with add.out, sum.IntList_out and
// copy_ for float32 only (tests/conformance/mutants).
const std::string kWithMutant =
    std::string("PLEXUS_PLUGIN_PATH=") + PLEXUS_MUTANT_CONTROL_DIR + " ";
#endif

#ifdef PLEXUS_TEST_CPU_PLUGIN

TEST_CASE("plexus ops --json gives each op's route on every backend") {
  Run r = run_command(kWithMutant + PLEXUS_CLI_PATH + " ops --json");
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  auto backends = j["backends"].get<std::vector<std::string>>();
  CHECK(std::count(backends.begin(), backends.end(), "cpu") == 1);
  CHECK(std::count(backends.begin(), backends.end(), "mutant_control") == 1);
  CHECK(j["fallback_policy"] == "cpu");
  std::map<std::string, nlohmann::json> ops;
  for (auto& op : j["ops"]) ops[op["name"]] = op;
  auto add = ops.at("add.out")["coverage"];
  CHECK(add["cpu"]["route"] == "native");
  CHECK(add["cpu"]["missing"].empty());
  CHECK(add["mutant_control"]["route"] == "native");
  CHECK(add["mutant_control"]["native"] == nlohmann::json({"float32"}));
  CHECK(add["mutant_control"]["fallback"].size() > 1);  // the cpu has the other dtypes
  CHECK(ops.at("add.out")["kernels"]["mutant_control"]["dtypes"] == nlohmann::json({"float32"}));
  // The functional form reports the coverage of its kernel op.
  CHECK(ops.at("add.Tensor")["coverage"] == ops.at("add.out")["coverage"]);
  CHECK(ops.at("sub.out")["coverage"]["mutant_control"]["route"] == "composite");
  CHECK(ops.at("mul.out")["coverage"]["mutant_control"]["route"] == "fallback");
}

TEST_CASE("plexus ops prints the coverage matrix with a column per backend") {
  Run r = run_command(kWithMutant + PLEXUS_CLI_PATH + " ops");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("op ") && Catch::Contains("  cpu ") &&
                        Catch::Contains("  mutant_control"));
  auto row = [&](const std::string& op) {
    size_t at = r.out.find("\n" + op + " ");
    REQUIRE(at != std::string::npos);
    return r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  };
  // Columns: cpu, mutant_control, then any other plugin the build has (vulkan, simt, ...).
  CHECK_THAT(row("add.out"), Catch::Matches("add\\.out +native +native\\(f32\\)\\+fallback( +\\S+)* *"));
  CHECK_THAT(row("sub.out"), Catch::Matches("sub\\.out +native +composite( +\\S+)* *"));
  CHECK_THAT(row("mul.out"), Catch::Matches("mul\\.out +native +fallback( +\\S+)* *"));
  CHECK_THAT(r.out, Catch::Contains("\ncpu: ") && Catch::Contains(" 0 missing\n") &&
                        Catch::Contains("\nmutant_control: 4 native, "));
}

TEST_CASE("plexus ops NAME shows that op's schemas and kernels") {
  Run r = run_command(kWithMutant + PLEXUS_CLI_PATH + " ops add");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)") &&
                        Catch::Contains("add.out(Tensor self") &&
                        Catch::Contains("catalog dtypes: ") &&
                        Catch::Contains("  mutant_control: native for float32; fallback for ") &&
                        Catch::Contains("(kernel from "));
  Run one = run_command(kWithMutant + PLEXUS_CLI_PATH + " ops mul.out --json");
  REQUIRE(one.status == 0);
  auto ops = nlohmann::json::parse(one.out)["ops"];
  REQUIRE(ops.size() == 1);
  CHECK(ops[0]["name"] == "mul.out");
}
#endif

TEST_CASE("plexus ops --schemas lists every schema with its kernels") {
  Run r = run("ops --schemas");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("add.out(Tensor self, Tensor other") &&
                        Catch::Contains("\n    kernels on add.out: "));
  std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  CHECK_THAT(last, Catch::Matches("[0-9]+ ops\n"));
}

TEST_CASE("plexus ops with an unknown op name fails and names it") {
  Run r = run_command(std::string(PLEXUS_CLI_PATH) + " ops nosuch.op 2>&1");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("nosuch.op"));
}

#ifdef PLEXUS_TEST_BENCH
TEST_CASE("plexus bench runs the harness and prints plain lines off a terminal") {
  Run r = run("bench --quick --filter 'add_1elem*'");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("name ") && Catch::Contains("\nadd"));
  CHECK(r.out.find('\r') == std::string::npos);  // no bar: stdout is a pipe
  CHECK(r.out.find('\033') == std::string::npos);
  Run j = run("bench --quick --json --filter 'add_1elem*'");
  REQUIRE(j.status == 0);
  auto rows = nlohmann::json::parse(j.out);
  REQUIRE(rows.is_array());
  REQUIRE_FALSE(rows.empty());
  for (auto& row : rows) CHECK_THAT(row["name"].get<std::string>(), Catch::StartsWith("add_1elem"));
  Run none = run("bench --quick --filter 'no-such-case*' 2>&1");
  CHECK(none.status == 1);
  CHECK_THAT(none.out, Catch::Contains("no case matches no-such-case*"));
}
#endif

#if defined(PLEXUS_CONFORMANCE_PATH) && defined(PLEXUS_MUTANT_CONTROL_DIR)
TEST_CASE("plexus-conformance prints one plain line per op off a terminal") {
  // The small mutant_control plugin: the cpu's would take 20 s to start here.
  Run r = run_command(std::string(PLEXUS_CONFORMANCE_PATH) + " --plugin " +
                      PLEXUS_MUTANT_CONTROL_DIR + " --filter 'add.out/float32/0d/*'");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("plexus-conformance: plugin mutant_control") &&
                        Catch::Contains("\n[") && Catch::Contains("] add.out ") &&
                        Catch::Contains(" cases, 0 failed ("));
  CHECK(r.out.find('\r') == std::string::npos);  // no bar: stdout is a pipe
  CHECK(r.out.find('\033') == std::string::npos);
}
#endif

#ifdef PLEXUS_PROFILE_TARGET_PATH
namespace {
struct Profiled {
  Run run;             // the CLI's exit status and stdout (the program's)
  std::string report;  // what plexus profile wrote to -o
  bool written;        // whether the -o file exists afterwards
};

// Runs `plexus profile -o FILE [flags] PROGRAM args` with `env` before it.
Profiled profile(const std::string& flags, const std::string& program_args,
                 const std::string& env = "") {
  std::string file = (std::filesystem::temp_directory_path() /
                      ("plexus-cli-profile-" + std::to_string(getpid()) + ".txt"))
                         .string();
  std::filesystem::remove(file);
  Run r =
      run_command(env + PLEXUS_CLI_PATH + " profile -o " + file + " " + flags + " " + program_args);
  bool written = std::filesystem::exists(file);
  std::ifstream f(file);
  std::string report((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::filesystem::remove(file);
  return {r, report, written};
}

const std::string kTarget = PLEXUS_PROFILE_TARGET_PATH;

// op -> the JSON record of that op on `device`.
std::map<std::string, nlohmann::json> ops_on(const nlohmann::json& j, const std::string& device) {
  std::map<std::string, nlohmann::json> out;
  for (auto& op : j["ops"])
    if (op["device"] == device) out[op["op"]] = op;
  return out;
}
}  // namespace

TEST_CASE("plexus profile counts the ops a program calls and keeps its output and status") {
  Profiled p = profile("--json", kTarget);
  CHECK(p.run.status == 0);
  CHECK(p.written);
  CHECK(p.run.out == "done\n");  // the program's stdout, untouched
  auto j = nlohmann::json::parse(p.report);
  CHECK(j["exit_status"] == 0);
  CHECK(j["signal"].is_null());
  CHECK(j["processes"] == 1);
  auto ops = ops_on(j, "cpu");
  REQUIRE(ops.count("add.Tensor"));
  CHECK(ops["add.Tensor"]["calls"] == 3);
  CHECK(ops["mul.Tensor"]["calls"] == 2);
  CHECK(ops["sum.dim_IntList"]["calls"] == 1);
  CHECK(ops["add.Tensor"]["fallbacks"] == 0);
  CHECK(ops["add.Tensor"]["total_ms"].get<double>() > 0);

  Profiled t = profile("", kTarget);
  CHECK(t.run.status == 0);
  CHECK_THAT(t.report,
             Catch::StartsWith("plexus profile: " + kTarget + " exited with status 0\n") &&
                 Catch::Contains("op ") && Catch::Contains("calls") && Catch::Contains("mean us") &&
                 Catch::Contains("fallbacks"));
  size_t at = t.report.find("\nmul.Tensor ");
  REQUIRE(at != std::string::npos);
  std::string row = t.report.substr(at + 1, t.report.find('\n', at + 1) - at - 1);
  CHECK_THAT(row, Catch::Matches("mul\\.Tensor +cpu +forward +2 +[0-9.]+ +[0-9.]+ +0"));
}

TEST_CASE("plexus profile shows ops that fell back to the cpu") {
  Profiled p = profile("--json", kTarget + " --device mutant_control:0", kWithMutant);
  REQUIRE(p.run.status == 0);
  auto ops = ops_on(nlohmann::json::parse(p.report), "mutant_control:0");
  CHECK(ops["add.Tensor"]["calls"] == 3);
  CHECK(ops["add.Tensor"]["fallbacks"] == 0);  // float32 add is native there
  CHECK(ops["mul.Tensor"]["calls"] == 2);
  CHECK(ops["mul.Tensor"]["fallbacks"] == 2);  // mul is not
}

TEST_CASE("plexus profile sums every process of the program") {
  Profiled p = profile("--json", "sh -c '" + kTarget + " && " + kTarget + "'");
  REQUIRE(p.run.status == 0);
  auto j = nlohmann::json::parse(p.report);
  CHECK(j["processes"] == 2);
  CHECK(ops_on(j, "cpu")["add.Tensor"]["calls"] == 6);
}

TEST_CASE("a program whose PLEXUS_PROFILE is no directory says so and still succeeds") {
  Run r = run_command("PLEXUS_PROFILE=/nonexistent/plexus-profile " + kTarget + " 2>&1");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("PLEXUS_PROFILE=/nonexistent/plexus-profile: cannot write the "
                                    "profile plexus-profile-") &&
                        Catch::Contains("expected a writable directory"));
}

TEST_CASE("plexus profile returns the program's failure and says how it ended") {
  Profiled exit3 = profile("", kTarget + " --exit 3");
  CHECK(exit3.run.status == 3);
  CHECK_THAT(exit3.report,
             Catch::Contains("exited with status 3") && Catch::Contains("add.Tensor"));

  Profiled crash = profile("", kTarget + " --abort");
  CHECK(crash.run.status == 128 + SIGABRT);
  CHECK_THAT(crash.report, Catch::Contains("was killed by signal 6") &&
                               Catch::Contains("No plexus ops were recorded"));

  Profiled missing = profile("", "/no/such/program 2>&1");
  CHECK(missing.run.status == 127);
  CHECK_THAT(missing.run.out,
             Catch::Contains("cannot run '/no/such/program': No such file or directory"));
  CHECK_FALSE(missing.written);  // no empty report file is left behind

  Run none = run("profile 2>&1");
  CHECK(none.status == 2);
  CHECK_THAT(none.out, Catch::Contains("name the program to run"));
}
#endif

TEST_CASE("plexus with an unknown subcommand fails with usage") {
  Run r = run("frobnicate 2>/dev/null");
  CHECK(r.status != 0);
}
#endif
