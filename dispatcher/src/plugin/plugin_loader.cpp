// load_plugins / unload_plugins: finds manifests on the search path, checks
// them and the libraries they name, opens the libraries with Boost.DLL and
// hands each accepted plugin to init_plugin (plugin_host.cpp).
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "plexus/error.h"
#include "plexus/log.h"
#include "plexus/plugins.h"
#include "plugin/manifest.h"
#include "plugin/plugin_host.h"
#include "plugin/trust.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;
namespace dll = boost::dll;
using State = PluginRecord::State;

// An initialized plugin. Members are destroyed in reverse order, so the
// instance goes before its library is closed.
struct LoadedPlugin {
  dll::shared_library library;
  PluginInstance instance;
};

struct Registry {
  std::mutex mutex;
  bool loaded = false;  // load_plugins ran and unload_plugins did not finish since
  std::vector<PluginRecord> records;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins;  // in load order
};

// Never destroyed: plugins not unloaded explicitly stay mapped while static
// destructors elsewhere may still call into them.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

spdlog::logger& logger() {
  return logging::get("loader");
}

// The manifests (*.json) directly in `dir`, by file name.
std::vector<fs::path> manifests_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) out.push_back(it->path());
  if (ec) logger().debug("plugin directory {} skipped: {}", dir.string(), ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

// Why the allow/deny lists leave `name` out; empty when they do not.
std::string skip_reason(const std::string& name, const PluginLoadOptions& o) {
  auto has = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  if (has(o.deny)) return "denied by the configuration";
  if (!o.allow.empty() && !has(o.allow)) return "not in the configuration's allow list";
  return {};
}

// Checks what can be checked without loading; throws Error saying what is wrong.
void check_before_loading(const Manifest& m, const PluginLoadOptions& o) {
  if (std::string why = abi_refusal(m.abi); !why.empty())
    fail(ErrorCode::VersionMismatch, "{} (manifest {})", why, m.file.string());
  PLEXUS_CHECK(m.arch.empty() || m.arch == host_arch(), ErrorCode::Unsupported,
               "built for {}, but this host is {} (manifest {})", m.arch, host_arch(),
               m.file.string());
  std::error_code ec;
  PLEXUS_CHECK(fs::exists(m.library, ec), ErrorCode::NotFound,
               "library {} named by manifest {} does not exist", m.library.string(),
               m.file.string());
  if (!o.allow_writable_by_others) {
    for (const fs::path& f : {m.file, m.library})
      if (std::string why = untrusted_reason(f); !why.empty())
        fail(ErrorCode::InvalidArgument, "refused: {}", why);
  }
  if (auto pin = o.sha256.find(m.name); pin != o.sha256.end()) {
    std::string expected = pin->second;
    std::transform(expected.begin(), expected.end(), expected.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string actual = sha256_file(m.library);
    PLEXUS_CHECK(actual == expected, ErrorCode::InvalidArgument,
                 "SHA-256 of {} is {}, but the configuration pins {}", m.library.string(), actual,
                 expected);
  }
}

dll::shared_library open_library(const fs::path& path) {
  dll::shared_library lib;
  std::error_code ec;
  lib.load(path, dll::load_mode::rtld_local | dll::load_mode::rtld_now, ec);
  if (ec) {
    const char* detail = dlerror();  // Boost.DLL leaves dlopen's message in place
    fail(ErrorCode::IoError, "cannot load {}: {}", path.string(), detail ? detail : ec.message());
  }
  return lib;
}

// Checks what the plugin says about itself against its manifest, reading the
// five fields every ABI version shares before anything else.
void check_info(const plexus_plugin_info& info, const Manifest& m) {
  PLEXUS_CHECK(info.struct_size >= offsetof(plexus_plugin_info, init), ErrorCode::VersionMismatch,
               "its plugin info is {} bytes, too small to hold even the version fields",
               info.struct_size);
  AbiVersion abi{info.abi_major, info.abi_minor};
  PLEXUS_CHECK(abi.major == m.abi.major && abi.minor == m.abi.minor, ErrorCode::VersionMismatch,
               "the plugin was built for ABI {}, but its manifest says {}", abi.str(), m.abi.str());
  if (std::string why = abi_refusal(abi); !why.empty()) fail(ErrorCode::VersionMismatch, "{}", why);
  PLEXUS_CHECK(info.name != nullptr && m.name == info.name, ErrorCode::InvalidArgument,
               "the plugin calls itself '{}', but its manifest names it '{}'",
               info.name ? info.name : "(null)", m.name);
  PLEXUS_CHECK(info.version != nullptr, ErrorCode::InvalidArgument,
               "the plugin reports no version");
  PLEXUS_CHECK(info.struct_size >= offsetof(plexus_plugin_info, shutdown) + sizeof(info.shutdown),
               ErrorCode::VersionMismatch,
               "its plugin info is {} bytes, too small to hold init and shutdown",
               info.struct_size);
  PLEXUS_CHECK(info.init != nullptr, ErrorCode::InvalidArgument, "the plugin has no init function");
  if (m.version != info.version)
    logger().warn("plugin '{}' reports version {}, its manifest {}", m.name, info.version,
                  m.version);
}

// Opens, checks and initializes the plugin of a checked manifest.
std::unique_ptr<LoadedPlugin> open_plugin(const Manifest& m, const PluginLoadOptions& o) {
  auto p = std::make_unique<LoadedPlugin>();
  p->library = open_library(m.library);
  PLEXUS_CHECK(p->library.has(PLEXUS_PLUGIN_ENTRY_SYMBOL), ErrorCode::NotFound,
               "{} does not export {}: it is not a plexus plugin, or its entry point lacks "
               "PLEXUS_EXTERN_C (a C++ name) or PLEXUS_PLUGIN_EXPORT (hidden); plexus_add_plugin "
               "checks this when it links (`nm -D LIBRARY` lists what it exports)",
               m.library.string(), PLEXUS_PLUGIN_ENTRY_SYMBOL);
  auto& entry =
      p->library.get<std::remove_pointer_t<plexus_plugin_entry_fn>>(PLEXUS_PLUGIN_ENTRY_SYMBOL);
  const plexus_plugin_info* info = entry(PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR);
  PLEXUS_CHECK(info != nullptr, ErrorCode::VersionMismatch,
               "the plugin refused this host (ABI {}.{}): its entry point returned NULL",
               PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR);
  check_info(*info, m);
  PluginInstance& inst = p->instance;
  inst.name = m.name;
  inst.version = info->version;
  inst.library = m.library.string();
  inst.info = info;
  if (auto it = o.options.find(m.name); it != o.options.end()) inst.options = it->second;
  try {
    init_plugin(inst, std::chrono::milliseconds(o.init_timeout_ms));
  } catch (...) {
    // An abandoned init still runs on a thread inside the library and uses
    // the instance: both stay, never freed. Otherwise p goes, closing it.
    if (inst.abandoned) {
      // Kept where leak checkers see it: reachable, on purpose, forever.
      static auto* abandoned = new std::vector<std::unique_ptr<LoadedPlugin>>;
      abandoned->push_back(std::move(p));
    }
    throw;
  }
  return p;
}

// PluginLoadOptions::probe: opens and initializes the plugin in a child
// process first, and fails it here if the child crashes, exits or hangs.
// An ordinary error in the child is left for the real load to report.
void probe_plugin(const Manifest& m, const PluginLoadOptions& o) {
  constexpr int kPluginError = 3;
  const pid_t pid = fork();
  PLEXUS_CHECK(pid >= 0, ErrorCode::Internal, "cannot fork a probe process: {}",
               std::strerror(errno));
  if (pid == 0) {  // the child: load, and report by exit status only
    // A plugin that calls exit() would run this process's atexit handlers
    // (the parent's static destructors, a leak checker) in the child, which
    // can hang or fail: the first handler to run ends the child at once with
    // the plugin's status.
    on_exit([](int status, void*) { std::_Exit(status); }, nullptr);
    // The parent's crash handlers (a test framework's, a sanitizer's) would
    // report a crash of the plugin as one of their own: crashes end the child
    // by the signal, which the parent reads.
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(sig, SIG_DFL);
    int code = 0;
    try {
      PluginLoadOptions child = o;
      child.init_timeout_ms = 0;  // the parent keeps the time
      (void)open_plugin(m, child).release();
    } catch (...) {
      code = kPluginError;
    }
    std::_Exit(code);  // no atexit handlers, no stdio flushes of the parent's buffers
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (auto nap = std::chrono::microseconds(50);; nap = std::min(nap * 2, decltype(nap)(10000))) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    PLEXUS_CHECK(r == 0 || errno == EINTR, ErrorCode::Internal,
                 "waiting for the probe process failed: {}", std::strerror(errno));
    if (o.init_timeout_ms > 0 &&
        std::chrono::steady_clock::now() - start > std::chrono::milliseconds(o.init_timeout_ms)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      fail(ErrorCode::DeviceError,
           "its init did not return within {} ms in a probe process (plugins.probe); not loaded",
           o.init_timeout_ms);
    }
    std::this_thread::sleep_for(nap);
  }
  if (WIFSIGNALED(status))
    fail(ErrorCode::DeviceError,
         "loading it crashed a probe process (plugins.probe) with signal {} ({}); not loaded",
         WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != kPluginError)
    fail(ErrorCode::DeviceError,
         "loading it ended a probe process (plugins.probe) with exit status {}: the plugin, or "
         "a sanitizer, ended the process; not loaded",
         WEXITSTATUS(status));
}

// Loads the plugin of one manifest, or records why not. `winners` maps each
// name claimed so far to its manifest.
PluginRecord load_one(const fs::path& file, const PluginLoadOptions& o,
                      std::map<std::string, std::string>& winners, Registry& r) {
  PluginRecord rec;
  rec.manifest = file.string();
  auto done = [&](State s, std::string reason) {
    rec.state = s;
    rec.reason = std::move(reason);
    return rec;
  };
  try {
    Manifest m = read_manifest(file);
    rec.name = m.name;
    rec.version = m.version;
    rec.library = m.library.string();
    rec.abi = m.abi.str();
    if (std::string why = skip_reason(m.name, o); !why.empty()) return done(State::Disabled, why);
    if (auto w = winners.find(m.name); w != winners.end())
      return done(State::Shadowed, "shadowed by " + w->second);
    winners.emplace(m.name, rec.manifest);  // the first of a name wins, loaded or not
    check_before_loading(m, o);
    if (o.probe) probe_plugin(m, o);
    auto p = open_plugin(m, o);
    for (DeviceType t : p->instance.device_types)
      rec.device_types.emplace_back(device_type_name(t));
    r.plugins.push_back(std::move(p));
    return done(State::Loaded, "");
  } catch (const std::exception& e) {
    if (rec.name.empty()) rec.name = manifest_name(file);  // a manifest with one bad field
    return done(State::Failed, e.what());
  }
}

void log_record(const PluginRecord& rec) {
  switch (rec.state) {
    case State::Loaded:
      logger().info("loaded plugin '{}' {} from {}", rec.name, rec.version, rec.library);
      break;
    case State::Failed:
      logger().warn("plugin {} failed: {}", rec.manifest, rec.reason);
      break;
    default:
      logger().debug("plugin {} {}: {}", rec.manifest, plugin_state_name(rec.state), rec.reason);
  }
}

}  // namespace

const char* plugin_state_name(PluginRecord::State state) {
  switch (state) {
    case State::Loaded:
      return "loaded";
    case State::Failed:
      return "failed";
    case State::Shadowed:
      return "shadowed";
    case State::Disabled:
      return "disabled";
  }
  return "unknown";
}

std::vector<PluginRecord> load_plugins(const PluginLoadOptions& options) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  PLEXUS_CHECK(!r.loaded, ErrorCode::InvalidArgument,
               "plugins are already loaded: call unload_plugins() before loading again");
  r.loaded = true;
  std::map<std::string, std::string> winners;
  for (const std::string& dir : plugin_search_path(options)) {
    for (const fs::path& file : manifests_in(dir)) {
      const auto start = std::chrono::steady_clock::now();
      r.records.push_back(load_one(file, options, winners, r));
      r.records.back().load_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      log_record(r.records.back());
    }
  }
  return r.records;
}

std::vector<PluginRecord> plugin_records() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.records;
}

void unload_plugins() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  while (!r.plugins.empty()) {
    // Throws, leaving this plugin and the ones loaded before it, when the
    // plugin cannot be shut down yet (its tensors are alive).
    shutdown_plugin(r.plugins.back()->instance);
    logger().info("unloaded plugin '{}'", r.plugins.back()->instance.name);
    r.plugins.pop_back();
  }
  r.records.clear();
  r.loaded = false;
}

}  // namespace plexus
