// Calling the host from plugin code: the host table's functions as C++
// calls that throw sdk::Error where the C ones return a status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"

namespace plexus::sdk {

// True when a table that starts with struct_size (as filled by the other side)
// holds the member at `offset` of `size` bytes: how a plugin checks for a field
// a later minor version added, e.g.
// has_member(host, offsetof(plexus_host_api, get_option), sizeof(host->get_option)).
template <typename Table>
bool has_member(const Table* table, size_t offset, size_t size) noexcept {
  return table && table->struct_size >= offset + size;
}

// Logs `message` through the host's logger for this plugin (never stdout).
inline void log(const plexus_host_api* host, int32_t level, const std::string& message) noexcept {
  if (host && host->log) host->log(host->host_ctx, level, message.c_str());
}

// Registers a device type; returns its slot. The table must stay valid until
// shutdown returns. Only during init.
inline int32_t register_backend(const plexus_host_api* host, const plexus_backend& backend) {
  int32_t slot = -1;
  check(host->register_backend(host->host_ctx, &backend, &slot),
        std::string("register_backend(\"") + (backend.name ? backend.name : "") + "\")");
  return slot;
}

// Defines an op in the plugin's namespace from its schema. Only during init.
inline void define_op(const plexus_host_api* host, const char* schema) {
  check(host->define_op(host->host_ctx, schema), std::string("define_op(\"") + schema + "\")");
}

// The absolute directory the plugin's library was loaded from (no trailing
// slash), for files shipped beside it; empty when the host does not say.
inline std::string plugin_directory(const plexus_host_api* host) {
  const bool known = host->struct_size >=
                     offsetof(plexus_host_api, plugin_directory) + sizeof(host->plugin_directory);
  const char* d =
      known && host->plugin_directory ? host->plugin_directory(host->host_ctx) : nullptr;
  return d ? std::string(d) : std::string();
}

// A per-plugin option from the application's configuration, or `fallback`.
inline std::string option(const plexus_host_api* host, const char* key,
                          const std::string& fallback = {}) {
  const char* v = host->get_option ? host->get_option(host->host_ctx, key) : nullptr;
  return v ? std::string(v) : fallback;
}

}  // namespace plexus::sdk
