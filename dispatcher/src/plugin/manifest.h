// A plugin's JSON manifest (<name>.json beside its library), read and checked
// before anything is loaded, and the ABI version rule it is judged by.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace plexus {

// A plugin ABI version, "MAJOR.MINOR".
struct AbiVersion {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string str() const;
};

// What a manifest says.
struct Manifest {
  std::filesystem::path file;     // the manifest itself
  std::string name;               // [a-z][a-z0-9_]*, equal to the file's stem
  std::string version;            // "plugin_version"
  std::filesystem::path library;  // the library: the manifest's dir / "library"
  AbiVersion abi;                 // "abi_version"
  std::string arch;               // "arch" (e.g. "x86_64"); empty when the manifest has none
};

// Reads and checks `file`; throws Error naming the file and what is wrong
// (not JSON, a field missing or ill-typed, a bad name or version).
Manifest read_manifest(const std::filesystem::path& file);
// The same checks on a manifest's text, as if read from `file` (whose stem
// must be the name, and whose directory holds the library).
Manifest parse_manifest(std::string_view text, const std::filesystem::path& file);
// The "name" a manifest gives, when the file parses as a JSON object whose
// "name" is a valid plugin name, even if another field is wrong; else empty.
// Failed-plugin reports use it. Never throws.
std::string manifest_name(const std::filesystem::path& file) noexcept;
// The same for a manifest's text.
std::string manifest_name_of(std::string_view text) noexcept;
// Parses "MAJOR.MINOR" (digits only); throws Error(InvalidArgument) otherwise.
AbiVersion parse_abi_version(std::string_view text);
// Why a plugin built for ABI `v` cannot load into this host; empty when it can.
std::string abi_refusal(const AbiVersion& v);
// The processor architecture this host was built for ("x86_64", "aarch64", ...),
// as plexus_add_plugin writes it into manifests.
std::string_view host_arch();
// True for a valid plugin name: [a-z][a-z0-9_]*.
bool valid_plugin_name(std::string_view name);

}  // namespace plexus
