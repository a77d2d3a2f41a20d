// The subcommands of the plexus CLI; each prints to stdout and returns an exit code.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace plexus::cli {

// `plexus devices`: every device type, its devices, or why it has none.
// `config_path` (--config) names the plexus.toml; empty = search for one.
int devices(bool json, const std::string& config_path);
// `plexus doctor`: the config, the plugin search path, what happened to each
// plugin, and the device the Runtime chooses with its explanation.
int doctor(const std::string& config_path, bool json, bool probe);
// `plexus config check FILE`: "ok" and the keys set, or every error with its file:line.
int config_check(const std::string& file);
// `plexus config show`: every config key, its value and where it came from.
int config_show(const std::string& config_path, bool json);
// `plexus ops`: the coverage matrix op x backend of the plugins the config
// loads; with names, those ops' schemas and kernels; `schemas`: every schema
// with its kernels; `json`: all of it.
int ops(bool json, bool schemas, const std::vector<std::string>& names,
        const std::string& config_path);
// `plexus bench ARGS`: runs plexus-bench, found beside this executable, with ARGS.
int bench(const std::vector<std::string>& args);
// `plexus profile CMD ARGS`: runs CMD with the profiler layer on and prints its
// per-op table (JSON with `json`) to stderr, or to `output` when given.
int profile(const std::vector<std::string>& command, bool json, const std::string& output);

// The communication backends of plexus::distributed (comm.cpp): name, whether
// it can be used, its library version (or why not), and what it serves.
struct CommLine {
  std::string name;
  bool available = false;
  std::string detail, serves;
};
std::vector<CommLine> comm_backend_lines();
// The same as JSON: a list of {"name", "available", "detail", "serves"}.
nlohmann::json comm_backends_json();

}  // namespace plexus::cli
