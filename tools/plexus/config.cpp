// `plexus config check FILE` and `plexus config show [--json]`: is a plexus.toml
// valid, and what configuration applies here, key by key, with where each value
// came from.
#include "plexus/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "plexus/error.h"

namespace plexus::cli {

int config_check(const std::string& file) {
  Config c;
  try {
    c = parse_config_file(file);
  } catch (const Error& e) {
    // One problem per line, each starting with FILE:LINE:COLUMN (for editors).
    fmt::print(stderr, "{}\n", e.message());
    return 1;
  }
  std::vector<std::string> keys;
  for (const auto& [key, origin] : c.origins) keys.push_back(key);
  fmt::print("ok: {}: {} key{} set{}{}\n", file, keys.size(), keys.size() == 1 ? "" : "s",
             keys.empty() ? "" : ": ", fmt::join(keys, ", "));
  return 0;
}

int config_show(const std::string& config_path, bool json) {
  Config c = load_config(config_path);
  if (json) {
    nlohmann::json entries = nlohmann::json::array();
    for (const ConfigEntry& e : config_entries(c))
      entries.push_back({{"key", e.key}, {"value", e.value}, {"from", e.origin.str()}});
    nlohmann::json doc{{"file", c.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.path)},
                       {"entries", entries}};
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  if (c.path.empty())
    fmt::print(
        "config file: none found (looked for --config, PLEXUS_CONFIG, ./plexus.toml, "
        "$XDG_CONFIG_HOME/plexus/plexus.toml); built-in defaults\n\n");
  else
    fmt::print("config file: {}\n\n", c.path);
  std::vector<ConfigEntry> entries = config_entries(c);
  size_t kw = 3, vw = 5;
  for (const ConfigEntry& e : entries) {
    kw = std::max(kw, e.key.size());
    vw = std::max(vw, e.value.size());
  }
  fmt::print("{:<{}}  {:<{}}  {}\n", "KEY", kw, "VALUE", vw, "FROM");
  for (const ConfigEntry& e : entries)
    fmt::print("{:<{}}  {:<{}}  {}\n", e.key, kw, e.value, vw, e.origin.str());
  return 0;
}

}  // namespace plexus::cli
