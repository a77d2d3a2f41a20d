// libFuzzer entry point for plexus.toml (plexus::parse_config_string: toml++
// and then plexus's own checks of keys, types and values). Any input must
// either give a Config, or be refused with a plexus::Error naming the file,
// line and column; a toml++ exception or any other escaping the parser, a
// crash or a sanitizer report is a bug. An accepted Config must also list its
// entries (what `plexus config show` prints).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "plexus/config.h"
#include "plexus/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  plexus::Config config;
  try {
    config = plexus::parse_config_string(text, "fuzz.toml");
  } catch (const plexus::Error& e) {
    // Refused: the message must say where (the name given above).
    if (std::string(e.what()).find("fuzz.toml") == std::string::npos) {
      std::fprintf(stderr, "an error that does not name the file: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  for (const plexus::ConfigEntry& entry : plexus::config_entries(config))
    if (entry.key.empty()) {
      std::fprintf(stderr, "an accepted config lists an entry without a key\n");
      std::abort();
    }
  return 0;
}
