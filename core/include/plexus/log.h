// Logging through spdlog: one logger per component ("core", "dispatcher",
// "loader", ...), all writing to stderr, never to stdout.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace plexus::logging {

// The logger of a component, created on first use at the current level.
spdlog::logger& get(std::string_view component);
// Sets the level of every plexus logger, present and future.
void set_level(spdlog::level::level_enum level);
// The level names, from the most verbose: "trace", "debug", "info", "warn",
// "error", "critical", "off". plexus.toml's log_level takes the same.
const std::vector<std::string>& level_names();
// Parses one of level_names(); throws InvalidArgument naming the valid choices.
spdlog::level::level_enum parse_level(std::string_view text);
// The level from PLEXUS_LOG_LEVEL (ignored in set-uid processes), else warn.
// The loggers start before any configuration is read and must not stop a
// program, so a value that is not a level is reported on stderr and warn is
// used; a Runtime (load_config) refuses the same value with an error.
spdlog::level::level_enum default_level();

}  // namespace plexus::logging
