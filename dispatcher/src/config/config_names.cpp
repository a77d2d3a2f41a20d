#include "config/config_names.h"

#include <charconv>

#include "plexus/log.h"

namespace plexus {
namespace {

bool lower_identifier(const std::string& s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::string type_name_error(const std::string& name) {
  if (lower_identifier(name) && name.size() <= 31) return {};
  return "'" + name +
         "' is not a device type name: expected [a-z][a-z0-9_]*, at most 31 characters";
}

std::string device_name_error(const std::string& text) {
  size_t colon = text.find(':');
  if (std::string why = type_name_error(text.substr(0, colon)); !why.empty())
    return "expected TYPE or TYPE:INDEX such as \"vulkan:0\"; " + why;
  if (colon == std::string::npos) return {};
  std::string index = text.substr(colon + 1);
  int value = -1;
  auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), value);
  if (index.empty() || ec != std::errc() || end != index.data() + index.size() || value < 0 ||
      value > 32767)
    return "device index '" + index + "' is not an integer from 0 to 32767";
  return {};
}

std::string plugin_name_error(const std::string& name) {
  if (lower_identifier(name)) return {};
  return "'" + name + "' is not a plugin name: expected [a-z][a-z0-9_]*";
}

const std::vector<std::string>& log_levels() {
  return logging::level_names();  // one list for the file, the environment and the loggers
}

}  // namespace plexus
