// find_config_file / load_config: which plexus.toml applies, and the
// environment variables that override it (PLEXUS_DEVICE, PLEXUS_LOG_LEVEL).
#include <filesystem>

#include "config/config_names.h"
#include "plexus/config.h"
#include "plexus/env.h"
#include "plexus/error.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// $XDG_CONFIG_HOME/plexus/plexus.toml, or ~/.config/plexus/plexus.toml.
std::optional<fs::path> user_config_file() {
  if (auto xdg = env_var("XDG_CONFIG_HOME"); xdg && !xdg->empty())
    return fs::path(*xdg) / "plexus" / "plexus.toml";
  if (auto home = env_var("HOME"); home && !home->empty())
    return fs::path(*home) / ".config" / "plexus" / "plexus.toml";
  return std::nullopt;
}

void set_from_env(Config& c, const char* var, const std::string& key, std::string& field,
                  const std::string& value) {
  field = value;
  c.origins[key] = {ConfigOrigin::Kind::Environment, var, 0, 0};
}

}  // namespace

std::optional<std::string> find_config_file(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (auto env = env_var("PLEXUS_CONFIG"); env && !env->empty()) return *env;
  if (is_file("plexus.toml")) return std::string("plexus.toml");
  if (auto user = user_config_file(); user && is_file(*user)) return user->string();
  return std::nullopt;
}

Config load_config(const std::string& explicit_path) {
  Config c;
  if (auto file = find_config_file(explicit_path)) {
    try {
      c = parse_config_file(*file);
    } catch (const Error& e) {
      // Say which rule picked a file the user may not know is read.
      if (explicit_path.empty() && e.code() == ErrorCode::NotFound && env_var("PLEXUS_CONFIG"))
        fail(ErrorCode::NotFound, "{} (named by PLEXUS_CONFIG)", e.message());
      throw;
    }
  }
  if (auto device = env_var("PLEXUS_DEVICE"); device && !device->empty()) {
    if (std::string why = device_name_error(*device); !why.empty())
      fail(ErrorCode::InvalidArgument, "PLEXUS_DEVICE='{}': {}", *device, why);
    set_from_env(c, "PLEXUS_DEVICE", "runtime.device", c.device, *device);
  }
  if (auto level = env_var("PLEXUS_LOG_LEVEL"); level && !level->empty()) {
    const auto& valid = log_levels();
    PLEXUS_CHECK(std::find(valid.begin(), valid.end(), *level) != valid.end(),
                 ErrorCode::InvalidArgument, "PLEXUS_LOG_LEVEL='{}' is not valid; valid values: {}",
                 *level, fmt::join(valid, ", "));
    set_from_env(c, "PLEXUS_LOG_LEVEL", "runtime.log_level", c.log_level, *level);
  }
  return c;
}

}  // namespace plexus
