// The plexus CLI, run as a user would: exit codes, tables, and JSON that parses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

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
  CHECK(p["abi"] == "1.0");
  CHECK_THAT(p["path"].get<std::string>(), Catch::EndsWith("libplexus-fixture_ok.so"));
  CHECK(p["devices"].empty());
  CHECK_THAT(p["reason"].get<std::string>(), Catch::Contains("no devices"));

  Run d = run_command(env + cli + " doctor");
  CHECK(d.status == 0);
  CHECK_THAT(d.out, Catch::Contains(dir) &&
                        Catch::Contains("ok        fixture_ok") &&
                        Catch::Contains("0 devices"));
}
#endif

TEST_CASE("plexus devices prints a table") {
  Run r = run("devices");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("DEVICE") && Catch::Contains("\ncpu "));
}

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

TEST_CASE("plexus with an unknown subcommand fails with usage") {
  Run r = run("frobnicate 2>/dev/null");
  CHECK(r.status != 0);
}
#endif
