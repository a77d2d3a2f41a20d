// plugin_search_path(): where load_plugins looks, in order.
#include <dlfcn.h>

#include <filesystem>
#include <set>

#include "plexus/env.h"
#include "plexus/plugins.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;

// An object inside libplexus, for dladdr to find the library's file.
const char kInLibplexus = 0;

// The directory holding libplexus.so; empty when it cannot be found.
fs::path libplexus_dir() {
  Dl_info info{};
  if (dladdr(&kInLibplexus, &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  fs::path lib = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : lib.parent_path();
}

// Absolute, normalized, without a trailing slash.
fs::path normalized(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

}  // namespace

std::vector<std::string> plugin_search_path(const PluginLoadOptions& options) {
  std::vector<std::string> dirs(options.search_paths);
  if (options.use_environment) {
    std::string env = env_var("PLEXUS_PLUGIN_PATH").value_or("");
    for (size_t start = 0; start <= env.size();) {
      size_t end = std::min(env.find(':', start), env.size());
      dirs.push_back(env.substr(start, end - start));
      start = end + 1;
    }
  }
  if (options.use_default_paths) {
    // Run from the build tree, this is the build tree's plugin dir
    // (build/lib/plexus/plugins); installed, the installed one. No build path
    // is compiled in, so an installed libplexus never searches a build tree.
    if (fs::path lib = libplexus_dir(); !lib.empty()) dirs.push_back(lib / "plexus" / "plugins");
  }
  // Leave out empty entries and directories already listed (through any symlink).
  std::vector<std::string> out;
  std::set<fs::path> seen;
  for (const std::string& d : dirs) {
    if (d.empty()) continue;
    fs::path p = normalized(d);
    std::error_code ec;
    fs::path key = fs::weakly_canonical(p, ec);
    if (seen.insert(ec ? p : key).second) out.push_back(p.string());
  }
  return out;
}

}  // namespace plexus
