// Logging through spdlog: one logger per component ("core", "dispatcher",
// "loader", ...), all writing to stderr, never to stdout.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>

namespace plexus::logging {

// The logger of a component, created on first use at the current level.
spdlog::logger& get(std::string_view component);
// Sets the level of every plexus logger, present and future.
void set_level(spdlog::level::level_enum level);
// Parses "trace", "debug", "info", "warn", "error", "critical", "off"; throws
// InvalidArgument naming the valid choices.
spdlog::level::level_enum parse_level(std::string_view text);
// The level from PLEXUS_LOG_LEVEL (ignored in set-uid processes), else warn.
spdlog::level::level_enum default_level();

}  // namespace plexus::logging
