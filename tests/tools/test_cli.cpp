// The plexus CLI, run as a user would: exit codes, tables, and JSON that parses.
#include <catch2/catch.hpp>

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

// Runs the CLI with arguments; stdout only (stderr goes to the test log).
Run run(const std::string& args) {
  std::string cmd = std::string(PLEXUS_CLI_PATH) + " " + args;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
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
  REQUIRE(j["device_types"].is_array());
  auto cpu = j["device_types"][0];
  CHECK(cpu["type"] == "cpu");
  CHECK(cpu["slot"] == 0);
  REQUIRE(cpu["devices"].size() == 1);
  CHECK(cpu["devices"][0]["device"] == "cpu");
  CHECK(cpu["devices"][0]["total_memory_bytes"].get<uint64_t>() > 0);
}

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
