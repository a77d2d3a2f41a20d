// Whether a plugin library may be loaded: who can write it and its directory,
// and its SHA-256 for configs that pin one.
#pragma once

#include <filesystem>
#include <string>

namespace plexus {

// Why a plugin's file (library or manifest) may not be trusted, empty when it
// may: it (or, for a symlink, the file it points to) or a directory holding
// it is writable by group or others, or owned by neither root nor the current
// user, or is not a regular file. The directories checked are the link's and
// the target's.
std::string untrusted_reason(const std::filesystem::path& file);
// The SHA-256 of a file's contents in lowercase hex; throws Error(IoError).
std::string sha256_file(const std::filesystem::path& file);

}  // namespace plexus
