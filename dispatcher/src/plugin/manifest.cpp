#include "plugin/manifest.h"

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plexus/error.h"
#include "plexus/plugin.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Manifests are a few hundred bytes; anything this big is not one.
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;

// The manifest's text as JSON; throws Error naming `file` when it is not JSON.
json parse_text(std::string_view text, const fs::path& file) {
  PLEXUS_CHECK(text.size() <= kMaxManifestBytes, ErrorCode::InvalidArgument,
               "{} is not a plugin manifest: {} bytes is too big", file.string(), text.size());
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // Syntax errors, and numbers too big for a double (out_of_range.406,
    // found by tests/fuzz/manifest_fuzz.cpp). e.what() starts with
    // "[json.exception.parse_error.101] "; keep the rest.
    // nlohmann quotes the whole last token, which a hostile file makes huge.
    std::string_view what = e.what();
    if (auto end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
    const bool cut = what.size() > 300;
    fail(ErrorCode::InvalidArgument, "{} is not a plugin manifest: not valid JSON ({}{})",
         file.string(), what.substr(0, 300), cut ? "..." : "");
  }
}

std::string read_text(const fs::path& file) {
  std::error_code ec;
  std::uintmax_t size = fs::file_size(file, ec);
  PLEXUS_CHECK(!ec, ErrorCode::IoError, "cannot read manifest {}: {}", file.string(), ec.message());
  PLEXUS_CHECK(size <= kMaxManifestBytes, ErrorCode::InvalidArgument,
               "{} is not a plugin manifest: {} bytes is too big", file.string(), size);
  std::ifstream in(file, std::ios::binary);
  PLEXUS_CHECK(in.good(), ErrorCode::IoError, "cannot open manifest {}", file.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The string field `key` of the manifest object `j`.
std::string string_field(const json& j, const fs::path& file, const char* key) {
  auto it = j.find(key);
  PLEXUS_CHECK(it != j.end(), ErrorCode::InvalidArgument, "manifest {} has no \"{}\" field",
               file.string(), key);
  PLEXUS_CHECK(it->is_string(), ErrorCode::InvalidArgument,
               "manifest {}: \"{}\" must be a string, not {}", file.string(), key, it->type_name());
  return it->get<std::string>();
}

bool parse_uint(std::string_view digits, uint32_t& out) {
  if (digits.empty() || digits.size() > 9) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return true;
}

}  // namespace

std::string AbiVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

AbiVersion parse_abi_version(std::string_view text) {
  AbiVersion v;
  auto dot = text.find('.');
  bool ok = dot != std::string_view::npos && parse_uint(text.substr(0, dot), v.major) &&
            parse_uint(text.substr(dot + 1), v.minor);
  PLEXUS_CHECK(ok, ErrorCode::InvalidArgument,
               "'{}' is not an ABI version of the form MAJOR.MINOR (e.g. \"1.0\")", text);
  return v;
}

std::string abi_refusal(const AbiVersion& v) {
  AbiVersion host{PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR};
  if (v.major != host.major)
    return fmt::format(
        "built for plugin ABI {}, but this host speaks ABI {}.x (ABI {}): major "
        "versions must match",
        v.str(), host.major, host.str());
  if (v.minor > host.minor)
    return fmt::format(
        "built for plugin ABI {}, newer than this host's ABI {}: update plexus, or "
        "use a build of the plugin for ABI {}",
        v.str(), host.str(), host.str());
  return {};
}

bool valid_plugin_name(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string manifest_name(const fs::path& file) noexcept {
  try {
    return manifest_name_of(read_text(file));
  } catch (...) {
    return {};
  }
}

std::string manifest_name_of(std::string_view text) noexcept {
  try {
    json j = parse_text(text, "manifest");
    if (!j.is_object()) return {};
    auto it = j.find("name");
    if (it == j.end() || !it->is_string()) return {};
    std::string name = it->get<std::string>();
    return valid_plugin_name(name) ? name : std::string();
  } catch (...) {
    return {};
  }
}

Manifest read_manifest(const fs::path& file) {
  return parse_manifest(read_text(file), file);
}

Manifest parse_manifest(std::string_view text, const fs::path& file) {
  json j = parse_text(text, file);
  PLEXUS_CHECK(j.is_object(), ErrorCode::InvalidArgument,
               "{} is not a plugin manifest: a JSON object was expected, not {}", file.string(),
               j.type_name());
  Manifest m;
  m.file = file;
  m.name = string_field(j, file, "name");
  PLEXUS_CHECK(valid_plugin_name(m.name), ErrorCode::InvalidArgument,
               "manifest {}: \"name\" '{}' is not a valid plugin name ([a-z][a-z0-9_]*)",
               file.string(), m.name);
  PLEXUS_CHECK(file.stem() == m.name, ErrorCode::InvalidArgument,
               "manifest {} names the plugin '{}': the file must be called {}.json", file.string(),
               m.name, m.name);
  std::string library = string_field(j, file, "library");
  PLEXUS_CHECK(!library.empty() && library.find('/') == std::string::npos && library != "." &&
                   library != "..",
               ErrorCode::InvalidArgument,
               "manifest {}: \"library\" '{}' must be a file name in the manifest's directory",
               file.string(), library);
  m.library = file.parent_path() / library;
  std::string abi = string_field(j, file, "abi_version");
  try {
    m.abi = parse_abi_version(abi);
  } catch (const Error& e) {
    fail(ErrorCode::InvalidArgument, "manifest {}: \"abi_version\": {}", file.string(),
         e.message());
  }
  m.version = string_field(j, file, "plugin_version");
  if (j.contains("arch")) m.arch = string_field(j, file, "arch");
  return m;
}

std::string_view host_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__i386__)
  return "i686";
#elif defined(__powerpc64__)
  return "ppc64le";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

}  // namespace plexus
