// Checks of the names plexus.toml holds (device types, devices, plugins) and
// the log levels it accepts; shared by the parser and the environment overrides.
#pragma once

#include <string>
#include <vector>

namespace plexus {

// Why `name` is not a device type name ([a-z][a-z0-9_]*, at most 31 characters); "" if it is.
std::string type_name_error(const std::string& name);
// Why `text` is not "TYPE" or "TYPE:INDEX" (INDEX a non-negative integer); "" if it is.
std::string device_name_error(const std::string& text);
// Why `name` is not a plugin name (same rules as device types); "" if it is.
std::string plugin_name_error(const std::string& name);
// "trace", "debug", "info", "warn", "error", "critical", "off".
const std::vector<std::string>& log_levels();

}  // namespace plexus
