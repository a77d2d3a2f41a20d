// The subcommands of the plexus CLI; each prints to stdout and returns an exit code.
#pragma once

#include <string>

namespace plexus::cli {

// `plexus devices`: every device type, its devices, or why it has none.
// `config_path` (--config) names the plexus.toml; empty = search for one.
int devices(bool json, const std::string& config_path);
// `plexus doctor`: the config, the plugin search path, what happened to each
// plugin, and the device the Runtime chooses with its explanation.
int doctor(const std::string& config_path);
// `plexus config check FILE`: "ok" and the keys set, or every error with its file:line.
int config_check(const std::string& file);
// `plexus config show`: every config key, its value and where it came from.
int config_show(const std::string& config_path);
// `plexus ops`: the catalog, one op per line with its schema and kernels.
int ops(bool json);

}  // namespace plexus::cli
