#include "plexus/env.h"

#include <cstdlib>

namespace plexus {

std::optional<std::string> env_var(const char* name) {
  const char* v = secure_getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

}  // namespace plexus
