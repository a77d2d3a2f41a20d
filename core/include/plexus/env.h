// Reading plexus' environment variables safely.
#pragma once

#include <optional>
#include <string>

namespace plexus {

// The variable's value, or nullopt when unset or when the process runs
// set-uid/set-gid (secure_getenv), so overrides cannot be injected there.
std::optional<std::string> env_var(const char* name);

}  // namespace plexus
