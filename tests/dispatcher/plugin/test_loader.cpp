// The plugin loader: manifests, search order, trust, loading, failures and
// unloading, run against the fixture plugins built from tests/dispatcher/plugin/fixtures/.
#include <catch2/catch.hpp>

#ifdef PLEXUS_TEST_PLUGIN_DIR
#include <dlfcn.h>
#include <stdlib.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops_elementwise.h"
#include "plexus/plugin.h"
#include "plexus/plugins.h"
#include "support/error_of.h"

namespace {

namespace fs = std::filesystem;
using Catch::Contains;
using plexus::PluginLoadOptions;
using plexus::PluginRecord;
using State = PluginRecord::State;

const fs::path kFixtures = PLEXUS_TEST_PLUGIN_DIR;

// A private directory (mode 0700) in the build tree for copies of fixtures,
// removed at the end of the test.
class PluginDir {
 public:
  PluginDir() {
    std::string name = (kFixtures / "tmp-XXXXXX").string();
    REQUIRE(mkdtemp(name.data()) != nullptr);
    path_ = name;
  }
  ~PluginDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  PluginDir(const PluginDir&) = delete;
  PluginDir& operator=(const PluginDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  fs::path operator/(const std::string& name) const { return path_ / name; }

  // Copies the files of a fixture here, with modes a careful install would give.
  PluginDir& add(const std::string& fixture) {
    for (const auto& e : fs::directory_iterator(kFixtures / fixture)) {
      fs::path to = path_ / e.path().filename();
      fs::copy_file(e.path(), to, fs::copy_options::overwrite_existing);
      fs::permissions(to, e.path().extension() == ".so" ? fs::perms(0755) : fs::perms(0644));
    }
    return *this;
  }
  // Writes a file with this text here.
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    fs::permissions(path_ / name, fs::perms(0644));
  }
  void chmod(fs::perms mode) const { fs::permissions(path_, mode); }

 private:
  fs::path path_;
};

// Options that search only `dirs`, whatever the environment and the install.
PluginLoadOptions only(std::vector<std::string> dirs) {
  PluginLoadOptions o;
  o.search_paths = std::move(dirs);
  o.use_environment = false;
  o.use_default_paths = false;
  return o;
}

// load_plugins for one test: starts from nothing loaded and unloads at the end.
struct Load {
  std::vector<PluginRecord> records;
  explicit Load(const PluginLoadOptions& o) {
    plexus::unload_plugins();
    records = plexus::load_plugins(o);
  }
  ~Load() {
    try {
      plexus::unload_plugins();
    } catch (const std::exception& e) {
      WARN("unload_plugins failed: " << e.what());
    }
  }
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  // The record of the manifest file `file_name` (the first one, if several).
  const PluginRecord& of(const std::string& file_name) const {
    for (const PluginRecord& r : records)
      if (fs::path(r.manifest).filename() == file_name) return r;
    FAIL("no record for manifest " << file_name);
    throw std::logic_error("unreachable");
  }
  // The one record of a load that found one manifest.
  const PluginRecord& single() const {
    REQUIRE(records.size() == 1);
    return records[0];
  }
};

// Loads from a private copy of one fixture and returns its single record.
PluginRecord load_fixture(const std::string& fixture) {
  PluginDir dir;
  dir.add(fixture);
  Load load(only({dir.str()}));
  return load.single();
}

// Whether the library at `path` is mapped into this process now.
bool is_mapped(const fs::path& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

// The SHA-256 of a file as sha256sum computes it.
std::string sha256sum(const fs::path& file) {
  FILE* p = popen(("sha256sum '" + file.string() + "'").c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 65> hex{};
  size_t n = fread(hex.data(), 1, 64, p);
  pclose(p);
  REQUIRE(n == 64);
  return hex.data();
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string abi(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}
const std::string kHostAbi = abi(PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR);

// The backend of the device type `name`, or nullptr when none is registered.
plexus::DeviceBackend* backend_of(const std::string& name) {
  auto slot = plexus::find_device_type(name);
  return slot ? plexus::find_device_backend(*slot) : nullptr;
}

// Checks that fixture_ok, loaded beside broken plugins, is loaded and answers.
void check_fixture_ok_works(const Load& load) {
  CHECK(load.of("fixture_ok.json").state == State::Loaded);
  plexus::DeviceBackend* b = backend_of("fixture_ok");
  REQUIRE(b != nullptr);
  CHECK(b->device_count() == 0);
  CHECK(b->unavailable_reason() == "fixture hardware is not present");
}

// Checks that fixture_abi10's device holds tensors and adds them, and that its
// kernel's error reaches the caller. Its tensors are gone when this returns.
void check_fixture_abi10_adds() {
  plexus::Device dev = plexus::Device::parse("fixture_abi10:0");
  REQUIRE(backend_of("fixture_abi10") != nullptr);
  CHECK(backend_of("fixture_abi10")->device_count() == 1);
  plexus::Tensor a = plexus::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).to(dev);
  plexus::Tensor b = plexus::tensor<float>({10, 20, 30, 40, 50, 60}, {2, 3}).to(dev);
  CHECK(a.device() == dev);
  plexus::Tensor c = plexus::add(a, b, 2);
  CHECK(c.device() == dev);
  CHECK(c.tolist<float>() == std::vector<float>{21, 42, 63, 84, 105, 126});
  plexus::Tensor back = c.cpu();
  CHECK(back.device() == plexus::Device());
  CHECK(back.tolist<float>() == std::vector<float>{21, 42, 63, 84, 105, 126});
  // A broadcast input reaches the kernel with stride 0, which it refuses.
  plexus::Tensor row = plexus::tensor<float>({1, 2, 3}, {3}).to(dev);
  auto e = plexus::testing::error_of([&] { plexus::add(a, row); });
  CHECK(e.code() == plexus::ErrorCode::Unsupported);
  CHECK_THAT(e.what(), Contains("contiguous tensors only") && Contains("fixture_abi10:0"));
}

}  // namespace

TEST_CASE("A good plugin loads, registers its backend and unloads", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  fs::path marker = dir / "shutdown-ran";
  PluginLoadOptions o = only({dir.str()});
  o.options["fixture_ok"] = {{"reason", "configured away"}, {"shutdown_marker", marker.string()}};
  {
    Load load(o);
    const PluginRecord& r = load.single();
    CHECK(r.state == State::Loaded);
    CHECK(r.reason.empty());
    CHECK(r.name == "fixture_ok");
    CHECK(r.version == "0.1.0");
    CHECK(r.abi == kHostAbi);
    CHECK(r.manifest == (dir / "fixture_ok.json").string());
    CHECK(r.library == (dir / "libplexus-fixture_ok.so").string());
    CHECK(r.device_types == std::vector<std::string>{"fixture_ok"});
    CHECK(plexus::plugin_records().size() == 1);
    CHECK(is_mapped(r.library));

    auto slot = plexus::find_device_type("fixture_ok");
    REQUIRE(slot);
    plexus::DeviceBackend* backend = plexus::find_device_backend(*slot);
    REQUIRE(backend != nullptr);
    CHECK(backend->device_count() == 0);
    CHECK(backend->unavailable_reason() == "configured away");  // the option reached the plugin
    CHECK_FALSE(fs::exists(marker));

    plexus::unload_plugins();
    CHECK(fs::exists(marker));  // its shutdown ran
    CHECK(plexus::find_device_backend(*slot) == nullptr);
    CHECK_FALSE(is_mapped(r.library));
    CHECK(plexus::plugin_records().empty());
  }
}

TEST_CASE("Loading again needs an unload first", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  PluginLoadOptions o = only({dir.str()});
  Load load(o);
  REQUIRE(load.single().state == State::Loaded);
  auto e = plexus::testing::error_of([&] { plexus::load_plugins(o); });
  CHECK(e.code() == plexus::ErrorCode::InvalidArgument);
  CHECK_THAT(e.message(), Contains("unload_plugins"));
  CHECK(plexus::plugin_records().size() == 1);  // the first load stands

  plexus::unload_plugins();
  plexus::unload_plugins();  // a no-op now
  auto again = plexus::load_plugins(o);
  REQUIRE(again.size() == 1);
  CHECK(again[0].state == State::Loaded);
}

TEST_CASE("A manifest of another ABI major is refused without loading", "[plugins]") {
  std::string fixture = "fixture_abi_major";
  unsigned major = PLEXUS_ABI_MAJOR + 1;
  SECTION("an older major") {
    fixture = "fixture_abi_old_major";
    major = PLEXUS_ABI_MAJOR - 1;
  }
  PluginDir dir;
  dir.add(fixture).add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of(fixture + ".json");
  CHECK(r.state == State::Failed);
  CHECK(r.abi == abi(major, 0));
  CHECK_THAT(r.reason, Contains("built for plugin ABI " + abi(major, 0)) && Contains(kHostAbi) &&
                           Contains("major versions must match"));
  CHECK_FALSE(is_mapped(r.library));
  check_fixture_ok_works(load);
}

TEST_CASE("A manifest of a newer ABI minor is refused, naming both versions", "[plugins]") {
  PluginRecord r = load_fixture("fixture_abi_minor");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason,
             Contains("built for plugin ABI " + abi(PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR + 1)) &&
                 Contains("this host's ABI " + kHostAbi));
}

TEST_CASE("A plugin whose ABI disagrees with its manifest is refused", "[plugins]") {
  PluginRecord r = load_fixture("fixture_abi_liar");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("built for ABI " + abi(PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR + 1)) &&
                           Contains("manifest says " + kHostAbi));
}

TEST_CASE("A plugin built for another ABI major than its manifest says is refused", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_abi_major_liar").add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of("fixture_abi_major_liar.json");
  CHECK(r.state == State::Failed);
  CHECK(r.abi == kHostAbi);
  CHECK_THAT(r.reason, Contains("built for ABI " + abi(PLEXUS_ABI_MAJOR + 1, 0)) &&
                           Contains("manifest says " + kHostAbi));
  CHECK(r.device_types.empty());
  CHECK_FALSE(is_mapped(r.library));
  check_fixture_ok_works(load);
}

TEST_CASE("A plugin whose name differs from its manifest's is refused", "[plugins]") {
  PluginRecord r = load_fixture("fixture_name_mismatch");
  CHECK(r.state == State::Failed);
  CHECK(r.name == "fixture_name_mismatch");
  CHECK_THAT(r.reason, Contains("calls itself 'fixture_other'") &&
                           Contains("names it 'fixture_name_mismatch'"));
}

TEST_CASE("A manifest whose library is missing fails", "[plugins]") {
  PluginRecord r = load_fixture("fixture_no_library");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("libplexus-fixture_no_library.so") && Contains("does not exist"));
}

TEST_CASE("A library without the entry symbol fails and is unloaded", "[plugins]") {
  PluginRecord r = load_fixture("fixture_no_entry");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("does not export plexus_plugin_entry"));
}

TEST_CASE("A plugin whose entry point returns NULL fails", "[plugins]") {
  PluginRecord r = load_fixture("fixture_refuses_host");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("refused this host") && Contains(kHostAbi));
}

TEST_CASE("A failing init is reported with the plugin's message and undone", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_init_fails");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.single();
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("the fixture widget driver is missing"));
  CHECK(r.device_types.empty());
  CHECK_FALSE(is_mapped(r.library));
  auto slot = plexus::find_device_type("fixture_init_fails");
  if (slot) CHECK(plexus::find_device_backend(*slot) == nullptr);
}

TEST_CASE("An exception thrown in an SDK plugin's init becomes its reason", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_init_throws").add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of("fixture_init_throws.json");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("plugin 'fixture_init_throws'") &&
                           Contains("fixture firmware 0.3 is too old; 2.0 or newer is needed"));
  CHECK(r.device_types.empty());
  CHECK_FALSE(is_mapped(r.library));
  CHECK(backend_of("fixture_broken") == nullptr);  // the backend it registered first is undone
  check_fixture_ok_works(load);
}

TEST_CASE("A plugin whose init hangs fails after the time limit and the others load",
          "[plugins][faults]") {
  PluginDir dir;
  dir.add("fixture_init_hangs").add("fixture_ok");
  PluginLoadOptions o = only({dir.str()});
  o.init_timeout_ms = 200;
  std::string library;
  {
    Load load(o);
    const PluginRecord& r = load.of("fixture_init_hangs.json");
    CHECK(r.state == State::Failed);
    CHECK(r.name == "fixture_init_hangs");
    CHECK_THAT(r.reason, Contains("init did not return within 200 ms") &&
                             Contains("plugins.init_timeout_ms") &&
                             Contains("undid what it had registered"));
    check_fixture_ok_works(load);
    library = r.library;
  }  // unload_plugins leaves the abandoned plugin alone: a thread is inside it
  CHECK(is_mapped(library));
  // Let the stuck init go on: its late registration is refused.
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto release = reinterpret_cast<plexus_status (*)()>(dlsym(h, "fixture_init_hangs_release"));
  REQUIRE(release != nullptr);
  CHECK(release() == PLEXUS_ERROR_INVALID_ARGUMENT);
  CHECK(backend_of("fixture_init_hangs") == nullptr);
  dlclose(h);  // only the reference taken here
}

TEST_CASE("With plugins.probe, a plugin whose init crashes, exits or hangs fails in a child",
          "[plugins][faults]") {
  PluginDir dir;
  dir.add("fixture_init_crashes")
      .add("fixture_init_hangs")
      .add("fixture_init_fails")
      .add("fixture_ok");
  PluginLoadOptions o = only({dir.str()});
  o.probe = true;
  o.init_timeout_ms = 500;
  {
    Load load(o);
    REQUIRE(load.records.size() == 4);
    const PluginRecord& crashed = load.of("fixture_init_crashes.json");
    CHECK(crashed.state == State::Failed);
    CHECK_THAT(crashed.reason, Contains("crashed a probe process (plugins.probe) with signal 6"));
    const PluginRecord& hung = load.of("fixture_init_hangs.json");
    CHECK(hung.state == State::Failed);
    CHECK_THAT(hung.reason, Contains("did not return within 500 ms in a probe process"));
    CHECK_FALSE(is_mapped(hung.library));  // never loaded into this process
    // An ordinary failure passes the probe; the real load reports its message.
    CHECK_THAT(load.of("fixture_init_fails.json").reason,
               Contains("the fixture widget driver is missing"));
    check_fixture_ok_works(load);
  }
  PluginDir exits;
  exits.add("fixture_init_crashes");
  o.search_paths = {exits.str()};
  o.options["fixture_init_crashes"] = {{"how", "exit"}};
  Load load(o);
  CHECK_THAT(load.single().reason, Contains("ended a probe process (plugins.probe) with exit "
                                            "status 7"));
}

TEST_CASE("A second plugin providing a device type already provided fails", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_dup_a").add("fixture_dup_b");
  PluginLoadOptions o = only({dir.str()});
  o.options["fixture_dup_a"] = {{"reason", "fixture_dup_a is asleep"}};
  o.options["fixture_dup_b"] = {{"reason", "fixture_dup_b is asleep"}};
  Load load(o);
  REQUIRE(load.records.size() == 2);
  const PluginRecord& first = load.of("fixture_dup_a.json");
  const PluginRecord& second = load.of("fixture_dup_b.json");
  CHECK(first.state == State::Loaded);
  CHECK(first.device_types == std::vector<std::string>{"fixture_dup"});
  CHECK(second.state == State::Failed);
  CHECK_THAT(second.reason, Contains("plugin 'fixture_dup_b'") &&
                                Contains("device type 'fixture_dup' is already provided"));
  CHECK(second.device_types.empty());
  CHECK_FALSE(is_mapped(second.library));
  CHECK(is_mapped(first.library));
  // The first plugin's backend is still the one registered, and answers.
  plexus::DeviceBackend* b = backend_of("fixture_dup");
  REQUIRE(b != nullptr);
  CHECK(b->device_count() == 0);
  CHECK(b->unavailable_reason() == "fixture_dup_a is asleep");
}

TEST_CASE("A kernel for an unknown op fails the plugin's init, naming the op", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_unknown_op").add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of("fixture_unknown_op.json");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason,
             Contains("plugin 'fixture_unknown_op'") && Contains("unknown op 'no_such_op.out'"));
  CHECK_FALSE(is_mapped(r.library));
  CHECK(backend_of("fixture_broken") == nullptr);
  check_fixture_ok_works(load);
}

TEST_CASE("An op defined with a malformed schema fails the plugin's init", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_bad_schema").add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of("fixture_bad_schema.json");
  CHECK(r.state == State::Failed);
  // The parser's message: the schema, the column and what it expected there.
  std::string first_line = r.reason.substr(0, r.reason.find('\n'));
  CHECK_THAT(first_line, Contains("plugin 'fixture_bad_schema'") &&
                             Contains("schema 'fixture_bad_schema::twice(Tensor self -> Tensor'") &&
                             Contains("column") && Contains("expected"));
  CHECK(plexus::Dispatcher::get().find_op("fixture_bad_schema::twice") == nullptr);
  CHECK_FALSE(is_mapped(r.library));
  check_fixture_ok_works(load);
}

TEST_CASE("A manifest for another architecture is refused without loading", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_other_arch").add("fixture_ok");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.of("fixture_other_arch.json");
  CHECK(r.state == State::Failed);
  CHECK_THAT(r.reason, Contains("built for sparc64, but this host is") &&
                           Contains((dir / "fixture_other_arch.json").string()));
  CHECK_FALSE(is_mapped(r.library));
  check_fixture_ok_works(load);
}

TEST_CASE("A library whose dependency is missing fails with the system's message", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_missing_dep");
  fs::path lib = dir / "libplexus-fixture_missing_dep.so";
  SECTION("without the dependency") {
    dir.add("fixture_ok");
    Load load(only({dir.str()}));
    const PluginRecord& r = load.of("fixture_missing_dep.json");
    CHECK(r.state == State::Failed);
    CHECK_THAT(r.reason, Contains("cannot load " + lib.string()) && Contains("libfixture_dep.so") &&
                             Contains("cannot open shared object file"));
    CHECK_FALSE(is_mapped(lib));
    check_fixture_ok_works(load);
  }
  SECTION("with the dependency beside it, the same library loads") {
    fs::copy_file(kFixtures / "deps" / "libfixture_dep.so", dir / "libfixture_dep.so");
    fs::permissions(dir / "libfixture_dep.so", fs::perms(0755));
    Load load(only({dir.str()}));
    CHECK(load.single().state == State::Loaded);
    plexus::DeviceBackend* b = backend_of("fixture_ok");
    REQUIRE(b != nullptr);
    CHECK(b->unavailable_reason() == "fixture_dep was found");
  }
}

TEST_CASE("A plugin without devices loads, and its reason reaches its backend", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  PluginLoadOptions o = only({dir.str()});
  o.options["fixture_ok"] = {{"reason", "the fixture driver is missing"}};
  Load load(o);
  const PluginRecord& r = load.single();
  CHECK(r.state == State::Loaded);
  CHECK(r.reason.empty());
  CHECK(r.device_types == std::vector<std::string>{"fixture_ok"});
  plexus::DeviceBackend* b = backend_of("fixture_ok");
  REQUIRE(b != nullptr);
  CHECK(b->device_count() == 0);
  CHECK(b->unavailable_reason() == "the fixture driver is missing");
}

TEST_CASE("A plugin built against the frozen ABI 1.0 header loads and computes", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_abi10");
  Load load(only({dir.str()}));
  const PluginRecord& r = load.single();
  CHECK(r.state == State::Loaded);
  CHECK(r.abi == "1.0");
  CHECK(r.device_types == std::vector<std::string>{"fixture_abi10"});
  check_fixture_abi10_adds();
  plexus::unload_plugins();
  CHECK(backend_of("fixture_abi10") == nullptr);
  CHECK_FALSE(is_mapped(r.library));
}

TEST_CASE("Files and directories writable by others are refused", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  fs::path lib = dir / "libplexus-fixture_ok.so";
  SECTION("a world-writable library") {
    fs::permissions(lib, fs::perms(0757));
    Load load(only({dir.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason, Contains(lib.string()) && Contains("writable by others"));
    CHECK_FALSE(is_mapped(lib));
  }
  SECTION("a group-writable library") {
    fs::permissions(lib, fs::perms(0775));
    Load load(only({dir.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason, Contains("writable by its group"));
  }
  SECTION("a world-writable manifest") {
    fs::permissions(dir / "fixture_ok.json", fs::perms(0666));
    Load load(only({dir.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason, Contains("fixture_ok.json") && Contains("writable by others"));
    CHECK_FALSE(is_mapped(lib));
  }
  SECTION("a world-writable directory") {
    dir.chmod(fs::perms(0777));
    Load load(only({dir.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason,
               Contains("directory " + dir.str()) && Contains("writable by others"));
  }
  SECTION("unless the configuration allows it") {
    fs::permissions(lib, fs::perms(0777));
    dir.chmod(fs::perms(0777));
    PluginLoadOptions o = only({dir.str()});
    o.allow_writable_by_others = true;
    Load load(o);
    CHECK(load.single().state == State::Loaded);
  }
}

TEST_CASE("A symlinked library is judged by what it points to", "[plugins]") {
  PluginDir links, target;
  target.add("fixture_ok");
  fs::copy_file(kFixtures / "fixture_ok" / "fixture_ok.json", links / "fixture_ok.json");
  fs::permissions(links / "fixture_ok.json", fs::perms(0644));
  fs::create_symlink(target / "libplexus-fixture_ok.so", links / "libplexus-fixture_ok.so");
  SECTION("into a world-writable directory: refused") {
    target.chmod(fs::perms(0777));
    Load load(only({links.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason,
               Contains("directory " + target.str()) && Contains("writable by others"));
  }
  SECTION("to a world-writable file: refused, naming the link") {
    fs::permissions(target / "libplexus-fixture_ok.so", fs::perms(0777));
    Load load(only({links.str()}));
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason,
               Contains("writable by others") && Contains("symlink " + links.str()));
  }
  SECTION("into a safe directory: loaded") {
    Load load(only({links.str()}));
    CHECK(load.single().state == State::Loaded);
  }
}

TEST_CASE("A SHA-256 pin must match the library", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  std::string digest = sha256sum(dir / "libplexus-fixture_ok.so");
  PluginLoadOptions o = only({dir.str()});
  SECTION("the right digest loads, in either case") {
    for (const std::string& pin : {digest, upper(digest)}) {
      o.sha256["fixture_ok"] = pin;
      Load load(o);
      CHECK(load.single().state == State::Loaded);
    }
  }
  SECTION("a wrong digest fails, naming both") {
    std::string wrong(64, '0');
    o.sha256["fixture_ok"] = wrong;
    Load load(o);
    CHECK(load.single().state == State::Failed);
    CHECK_THAT(load.single().reason, Contains("SHA-256") && Contains(digest) && Contains(wrong));
    CHECK_FALSE(is_mapped(dir / "libplexus-fixture_ok.so"));
  }
}

TEST_CASE("The first plugin of a name wins; later ones are shadowed", "[plugins]") {
  PluginDir first, second;
  first.add("fixture_ok");
  second.add("fixture_ok");
  Load load(only({first.str(), second.str()}));
  REQUIRE(load.records.size() == 2);
  CHECK(load.records[0].manifest == (first / "fixture_ok.json").string());
  CHECK(load.records[0].state == State::Loaded);
  CHECK(load.records[1].manifest == (second / "fixture_ok.json").string());
  CHECK(load.records[1].state == State::Shadowed);
  CHECK(load.records[1].reason == "shadowed by " + (first / "fixture_ok.json").string());
}

TEST_CASE("Allow and deny lists skip plugins", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  PluginLoadOptions o = only({dir.str()});
  SECTION("denied") {
    o.deny = {"fixture_ok"};
    Load load(o);
    CHECK(load.single().state == State::Disabled);
    CHECK_THAT(load.single().reason, Contains("denied"));
    CHECK_FALSE(is_mapped(dir / "libplexus-fixture_ok.so"));
  }
  SECTION("not allowed") {
    o.allow = {"something_else"};
    Load load(o);
    CHECK(load.single().state == State::Disabled);
    CHECK_THAT(load.single().reason, Contains("allow list"));
  }
  SECTION("deny wins over allow") {
    o.allow = o.deny = {"fixture_ok"};
    Load load(o);
    CHECK(load.single().state == State::Disabled);
  }
  SECTION("allowed") {
    o.allow = {"fixture_ok"};
    Load load(o);
    CHECK(load.single().state == State::Loaded);
  }
}

TEST_CASE("Bad manifests fail, naming the file and the problem", "[plugins]") {
  PluginDir dir;
  dir.add("garbage");
  dir.write("not_a_manifest.json", "[1, 2, 3]");
  dir.write("no_abi.json", R"({"name": "no_abi", "library": "libx.so", "plugin_version": "1"})");
  dir.write("abi_number.json",
            R"({"name": "abi_number", "library": "libx.so", "abi_version": 1.0,
                "plugin_version": "1"})");
  dir.write("abi_text.json",
            R"({"name": "abi_text", "library": "libx.so", "abi_version": "one",
                "plugin_version": "1"})");
  dir.write("bad_name.json",
            R"({"name": "Bad-Name", "library": "libx.so", "abi_version": "1.0",
                "plugin_version": "1"})");
  dir.write("wrong_file.json",
            R"({"name": "other", "library": "libx.so", "abi_version": "1.0",
                "plugin_version": "1"})");
  dir.write("escape.json",
            R"({"name": "escape", "library": "../libx.so", "abi_version": "1.0",
                "plugin_version": "1"})");
  dir.write("README.txt", "not a manifest and not .json: ignored");
  Load load(only({dir.str()}));
  CHECK(load.records.size() == 8);
  for (const PluginRecord& r : load.records) {
    CHECK(r.state == State::Failed);
    CHECK_THAT(r.reason, Contains(r.manifest));
  }
  CHECK_THAT(load.of("garbage.json").reason, Contains("not valid JSON"));
  CHECK(load.of("garbage.json").name.empty());
  CHECK_THAT(load.of("not_a_manifest.json").reason, Contains("JSON object"));
  CHECK_THAT(load.of("no_abi.json").reason, Contains("no \"abi_version\" field"));
  CHECK_THAT(load.of("abi_number.json").reason, Contains("\"abi_version\" must be a string"));
  CHECK_THAT(load.of("abi_text.json").reason, Contains("MAJOR.MINOR"));
  CHECK_THAT(load.of("bad_name.json").reason, Contains("not a valid plugin name"));
  CHECK_THAT(load.of("wrong_file.json").reason, Contains("must be called other.json"));
  CHECK_THAT(load.of("escape.json").reason, Contains("file name in the manifest's directory"));
  // A manifest that parsed names its plugin in the report, even with a bad field.
  CHECK(load.of("no_abi.json").name == "no_abi");
  CHECK(load.of("abi_text.json").name == "abi_text");
  CHECK(load.of("wrong_file.json").name == "other");
  CHECK(load.of("bad_name.json").name.empty());
  CHECK(load.of("not_a_manifest.json").name.empty());
}

TEST_CASE("A library the dynamic loader rejects fails with its message", "[plugins]") {
  PluginDir dir;
  dir.write("broken.json", R"({"name": "broken", "library": "libplexus-broken.so",
                               "abi_version": "1.0", "plugin_version": "1"})");
  dir.write("libplexus-broken.so", std::string(4096, 'x'));  // no ELF header
  Load load(only({dir.str()}));
  CHECK(load.single().state == State::Failed);
  CHECK_THAT(load.single().reason,
             Contains("cannot load " + (dir / "libplexus-broken.so").string()) && Contains("ELF"));
}

TEST_CASE("One bad plugin never stops the others", "[plugins]") {
  PluginDir dir;
  for (const char* f : {"fixture_abi_liar", "fixture_abi_major", "fixture_abi_minor",
                        "fixture_init_fails", "fixture_name_mismatch", "fixture_no_entry",
                        "fixture_no_library", "fixture_ok", "fixture_refuses_host", "garbage"})
    dir.add(f);
  Load load(only({dir.str()}));
  REQUIRE(load.records.size() == 10);
  for (const PluginRecord& r : load.records) {
    INFO(r.manifest << ": " << r.reason);
    CHECK(r.state == (r.name == "fixture_ok" ? State::Loaded : State::Failed));
  }
  // Manifests are taken in file-name order.
  CHECK(fs::path(load.records.front().manifest).filename() == "fixture_abi_liar.json");
  CHECK(fs::path(load.records.back().manifest).filename() == "garbage.json");
}

TEST_CASE("Good plugins load and work beside bad ones", "[plugins]") {
  // Each bad fixture and what its reason must say.
  const std::map<std::string, std::string> bad = {
      {"fixture_abi_major", "major versions must match"},
      {"fixture_abi_old_major", "major versions must match"},
      {"fixture_abi_major_liar", "but its manifest says"},
      {"fixture_bad_schema", "schema 'fixture_bad_schema::twice"},
      {"fixture_dup_b", "device type 'fixture_dup' is already provided"},
      {"fixture_init_fails", "writable by others"},
      {"fixture_init_throws", "fixture firmware 0.3 is too old"},
      {"fixture_missing_dep", "cannot open shared object file"},
      {"fixture_other_arch", "built for sparc64"},
      {"fixture_unknown_op", "unknown op 'no_such_op.out'"},
  };
  const std::vector<std::string> good = {"fixture_abi10", "fixture_dup_a", "fixture_ok"};
  PluginDir dir;
  for (const auto& [fixture, reason] : bad) dir.add(fixture);
  for (const std::string& fixture : good) dir.add(fixture);
  fs::permissions(dir / "libplexus-fixture_init_fails.so", fs::perms(0757));
  Load load(only({dir.str()}));
  REQUIRE(load.records.size() == bad.size() + good.size());
  for (const PluginRecord& r : load.records) {
    INFO(r.manifest << ": " << r.reason);
    if (auto it = bad.find(r.name); it != bad.end()) {
      CHECK(r.state == State::Failed);
      CHECK_THAT(r.reason, Contains(it->second));
      CHECK_FALSE(is_mapped(r.library));
    } else {
      CHECK(r.state == State::Loaded);
      CHECK(r.reason.empty());
    }
  }
  check_fixture_ok_works(load);
  REQUIRE(backend_of("fixture_dup") != nullptr);
  CHECK(backend_of("fixture_dup")->unavailable_reason() == "fixture hardware is not present");
  check_fixture_abi10_adds();
  CHECK(backend_of("fixture_broken") == nullptr);
  plexus::unload_plugins();
  for (const std::string& fixture : good)
    CHECK_FALSE(is_mapped(dir / ("libplexus-" + fixture + ".so")));
}

TEST_CASE("The search path: config, environment, then default directories", "[plugins]") {
  PluginDir a, b, c;
  const char* old = getenv("PLEXUS_PLUGIN_PATH");
  std::string saved = old ? old : "";
  setenv("PLEXUS_PLUGIN_PATH", (c.str() + "::" + a.str() + "/").c_str(), 1);
  PluginLoadOptions o;
  o.search_paths = {a.str(), b.str(), ""};
  o.use_default_paths = false;
  // Empty entries and directories seen before are left out.
  CHECK(plexus::plugin_search_path(o) == std::vector<std::string>{a.str(), b.str(), c.str()});
  o.use_environment = false;
  CHECK(plexus::plugin_search_path(o) == std::vector<std::string>{a.str(), b.str()});
  o.use_default_paths = true;
  auto with_defaults = plexus::plugin_search_path(o);
  REQUIRE(with_defaults.size() >= 3);
  CHECK_THAT(with_defaults[2], Catch::EndsWith("/plexus/plugins"));
  if (old)
    setenv("PLEXUS_PLUGIN_PATH", saved.c_str(), 1);
  else
    unsetenv("PLEXUS_PLUGIN_PATH");
}

TEST_CASE("Missing search directories are skipped quietly", "[plugins]") {
  PluginDir dir;
  dir.add("fixture_ok");
  Load load(only({(dir / "does-not-exist").string(), dir.str()}));
  CHECK(load.single().state == State::Loaded);
}

#endif  // PLEXUS_TEST_PLUGIN_DIR
