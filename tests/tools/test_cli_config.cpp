// `plexus config check`, `plexus config show`, and --config honoured by
// `plexus devices` and `plexus doctor`: the real binary run as a user would.
#include <fmt/format.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/scratch.h"

#if defined(PLEXUS_CLI_PATH) && defined(PLEXUS_TEST_PLUGIN_DIR)
namespace {

using Catch::Contains;
using plexus::testing::ScopedEnv;
using plexus::testing::ScratchDir;

struct Run {
  int status;
  std::string out;
};

// Runs the CLI with `args` through the shell; stdout, and stderr too when `err`.
Run cli(const std::string& args, bool err = false) {
  std::string cmd = std::string(PLEXUS_CLI_PATH) + " " + args + (err ? " 2>&1" : "");
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kFixtures = PLEXUS_TEST_PLUGIN_DIR;

// The words of the line of `out` that starts with `key` (a table row).
std::vector<std::string> row(const std::string& out, const std::string& key) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (!w.empty() && w[0] == key) return w;
  }
  FAIL("no row " << key << " in:\n" << out);
  return {};
}

// Only the fixture plugins: fixture_dev_a (2 gpu devices) and fixture_ok (none).
std::string fixture_config(const std::string& runtime) {
  return fmt::format(
      "[plugins]\npaths = [\"{0}/fixture_dev_a\", \"{0}/fixture_ok\"]\n"
      "use_environment = false\nuse_default_paths = false\n"
      "[runtime]\n{1}\n",
      kFixtures, runtime);
}

}  // namespace

TEST_CASE("plexus config check: ok with the keys set, or each error with file:line") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string good = dir.write("good.toml", "[runtime]\ndevice = \"cpu\"\nfallback = \"error\"\n");
  Run ok = cli("config check " + good);
  CHECK(ok.status == 0);
  CHECK(ok.out == "ok: " + good + ": 2 keys set: runtime.device, runtime.fallback\n");

  std::string bad =
      dir.write("bad.toml", "[runtime]\ndevise = \"cpu\"\n[allocator]\ncaching = 2\n");
  Run r = cli("config check " + bad, true);
  CHECK(r.status == 1);
  CHECK(r.out == bad +
                     ":2:1: unknown key 'devise' in [runtime]; valid keys: device, prefer, "
                     "policy, fallback, log_level\n" +
                     bad +
                     ":4:11: allocator.caching must be true or false; found an integer (2)\n");

  std::string broken = dir.write("broken.toml", "[runtime\n");
  Run m = cli("config check " + broken, true);
  CHECK(m.status == 1);
  CHECK_THAT(m.out, Catch::StartsWith(broken + ":1:") && Contains("malformed TOML"));

  Run missing = cli("config check " + (dir.path() / "none.toml").string(), true);
  CHECK(missing.status == 1);
  CHECK_THAT(missing.out, Contains("none.toml does not exist"));
}

TEST_CASE("plexus config check accepts examples/plexus.toml") {
  Run r = cli(std::string("config check ") + PLEXUS_SOURCE_DIR + "/examples/plexus.toml");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("ok: "));
}

TEST_CASE("plexus config show: every key, its value and where it came from") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file = dir.write("plexus.toml", "[runtime]\nfallback = \"error\"\n");
  Run r = cli("config show --config " + file);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("config file: " + file + "\n"));
  CHECK(row(r.out, "runtime.fallback") ==
        std::vector<std::string>{"runtime.fallback", "\"error\"", file + ":2:1"});
  CHECK(row(r.out, "runtime.policy") ==
        std::vector<std::string>{"runtime.policy", "\"prefer_gpu\"", "default"});
  CHECK(row(r.out, "allocator.max_cached_mb") ==
        std::vector<std::string>{"allocator.max_cached_mb", "0", "default"});

  // ./plexus.toml is found from the current directory; PLEXUS_DEVICE overrides it.
  ScopedEnv device("PLEXUS_DEVICE", "vulkan:1");
  Run cd = {0, ""};
  {
    plexus::testing::ScopedCwd cwd(dir.path());
    cd = cli("config show");
  }
  REQUIRE(cd.status == 0);
  CHECK_THAT(cd.out, Catch::StartsWith("config file: plexus.toml\n"));
  CHECK(row(cd.out, "runtime.device") ==
        std::vector<std::string>{"runtime.device", "\"vulkan:1\"", "environment", "PLEXUS_DEVICE"});
}

TEST_CASE("plexus --config that does not exist, or is invalid, fails with the reason") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  Run r = cli("--config " + (dir.path() / "none.toml").string() + " devices", true);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("none.toml does not exist"));
  std::string bad = dir.write("bad.toml", "[runtime]\npolicy = \"fast\"\n");
  Run d = cli("doctor --config " + bad, true);
  CHECK(d.status == 1);
  CHECK_THAT(d.out, Contains("Config: FAILED") && Contains(bad + ":2:10: runtime.policy"));
}

TEST_CASE("plexus devices honours the config's plugin settings") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file = dir.write(
      "plexus.toml",
      fmt::format("[plugins]\npaths = [\"{0}/fixture_dev_a\", \"{0}/fixture_ok\"]\n"
                  "use_environment = false\nuse_default_paths = false\ndeny = [\"fixture_ok\"]\n"
                  "[options.fixture_dev_a]\ncount = 3\n",
                  kFixtures));
  Run r = cli("devices --json --config " + file);
  REQUIRE(r.status == 0);
  auto plugins = nlohmann::json::parse(r.out)["plugins"];
  REQUIRE(plugins.size() == 2);
  CHECK(plugins[0]["name"] == "fixture_dev_a");
  CHECK(plugins[0]["devices"].size() == 3);  // the plugin read count = 3
  CHECK(plugins[1]["name"] == "fixture_ok");
  CHECK(plugins[1]["status"] == "disabled");
}

TEST_CASE("plexus doctor prints the runtime's choice and why the others lost") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file = dir.write("plexus.toml", fixture_config("device = \"fixture_dev_a:1\""));
  Run r = cli("--config " + file + " doctor");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Config: " + file + "\n"));
  CHECK_THAT(r.out, Contains("Device chosen by the runtime:\n"
                             "  chosen: fixture_dev_a:1 (gpu device: fixture_dev_a device 1)\n"
                             "  why: runtime.device = \"fixture_dev_a:1\" (" +
                             file + ":6:1)\n"));
  CHECK_THAT(r.out, Contains("  fixture_dev_a:0: not the configured device (fixture_dev_a:1)\n"));
  CHECK_THAT(r.out, Contains("  fixture_ok: plugin fixture_ok loaded, 0 devices: fixture "
                             "hardware is not present\n"));
  CHECK_THAT(r.out, Contains("  cuda: not installed"));
  CHECK_THAT(r.out, Contains("No problems found."));

  std::string unavailable = dir.write("u.toml", fixture_config("device = \"fixture_dev_a:7\""));
  Run u = cli("doctor --config " + unavailable);
  CHECK(u.status == 0);
  CHECK_THAT(u.out, Contains("Device: FAILED: device fixture_dev_a:7 (set by ") &&
                        Contains("index 7 is out of range"));
  CHECK_THAT(u.out, Contains("ok        fixture_dev_a"));  // plugins still listed
  CHECK_THAT(u.out, Contains("No device could be chosen; see above."));

  std::string ghost = dir.write(
      "g.toml", fixture_config("device = \"fixture_dev_a:0\"") + "[options.ghost]\nx = 1\n");
  Run g = cli("doctor --config " + ghost);
  CHECK(g.status == 0);
  CHECK_THAT(g.out, Contains("  config warnings:\n    [options.ghost] (" + ghost +
                             ":8:1): no "
                             "plugin named 'ghost' was found; its options are unused\n"));
  CHECK_THAT(g.out, Contains("\n1 config warning(s); see above.\n"));
}

TEST_CASE("plexus doctor --json and config show --json hold the text reports' facts") {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file = dir.write("plexus.toml", fixture_config("device = \"fixture_dev_a:1\""));
  Run r = cli("--config " + file + " doctor --json");
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["config"]["file"] == file);
  CHECK(doc["device"]["chosen"] == "fixture_dev_a:1");
  CHECK(doc["device"]["candidates"][0]["name"] == "fixture_dev_a:1");
  CHECK(doc["device"]["candidates"][0]["state"] == "chosen");
  CHECK_THAT(doc["device"]["candidates"][0]["reason"].get<std::string>(),
             Contains("runtime.device"));
  bool fixture_ok = false;
  for (auto& p : doc["plugins"])
    if (p["name"] == "fixture_ok") {
      fixture_ok = true;
      CHECK(p["state"] == "loaded");
      CHECK(p["device_types"][0]["devices"] == 0);
      CHECK_THAT(p["device_types"][0]["reason"].get<std::string>(),
                 Contains("fixture hardware is not present"));
    }
  CHECK(fixture_ok);
  CHECK(doc["search_path"].size() >= 1);

  std::string unavailable = dir.write("u.toml", fixture_config("device = \"fixture_dev_a:7\""));
  auto u = nlohmann::json::parse(cli("doctor --json --config " + unavailable).out);
  CHECK(u["device"]["chosen"].is_null());
  CHECK_THAT(u["device"]["error"].get<std::string>(), Contains("index 7 is out of range"));

  Run show = cli("config show --json --config " + file);
  REQUIRE(show.status == 0);
  auto entries = nlohmann::json::parse(show.out);
  CHECK(entries["file"] == file);
  bool device_row = false;
  for (auto& e : entries["entries"])
    if (e["key"] == "runtime.device") {
      device_row = true;
      CHECK(e["value"] == "\"fixture_dev_a:1\"");
      CHECK(e["from"] == file + ":6:1");
    }
  CHECK(device_row);
}
#endif
