// libFuzzer entry point for plugin manifests (plexus::parse_manifest, what the
// loader reads before it opens any library, and manifest_name_of, what a
// failed plugin's report is named by). Any input must either give a Manifest
// or be refused with a plexus::Error naming the file; an nlohmann exception or
// any other escaping the parser, a crash or a sanitizer report is a bug. An
// accepted manifest must hold what the loader relies on: a valid name equal
// to the file's stem, a library inside the manifest's directory, and an ABI
// version that prints and parses back to itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plexus/error.h"
#include "plugin/manifest.h"

namespace {
[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The name the manifest gives, so that the stem check passes and the
  // checks after it are reached; "fuzz" when it gives none.
  std::string name = plexus::manifest_name_of(text);
  if (!name.empty() && !plexus::valid_plugin_name(name)) bug("manifest_name_of gave", name);
  const std::string file = "/plugins/" + (name.empty() ? std::string("fuzz") : name) + ".json";
  plexus::Manifest m;
  try {
    m = plexus::parse_manifest(text, file);
  } catch (const plexus::Error& e) {
    if (std::string(e.what()).find(file) == std::string::npos)
      bug("an error that does not name the file", e.what());
    return 0;
  }
  if (m.name != name) bug("accepted with a name manifest_name_of does not give", m.name);
  if (m.library.parent_path() != "/plugins")
    bug("a library outside the manifest's directory", m.library.string());
  if (plexus::parse_abi_version(m.abi.str()).major != m.abi.major ||
      plexus::parse_abi_version(m.abi.str()).minor != m.abi.minor)
    bug("an ABI version that does not parse back", m.abi.str());
  (void)plexus::abi_refusal(m.abi);
  return 0;
}
