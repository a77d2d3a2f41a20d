#include "plugin/trust.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <memory>

#include "plexus/error.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;

// Why the file or directory at `p` (followed if a symlink) may not be trusted.
std::string check_one(const fs::path& p, bool directory) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return fmt::format("cannot stat {}", p.string());
  const char* what = directory ? "directory" : "file";
  if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
    return fmt::format("{} is not a regular {}", p.string(), directory ? "directory" : "file");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format("{} {} is writable by {} (mode {:04o})", what, p.string(),
                       (st.st_mode & S_IWOTH) ? "others" : "its group", st.st_mode & 07777);
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format("{} {} is owned by uid {}, neither root nor the current user", what,
                       p.string(), st.st_uid);
  return {};
}

}  // namespace

std::string untrusted_reason(const fs::path& file) {
  std::error_code ec;
  fs::path target = fs::canonical(file, ec);
  if (ec) return fmt::format("cannot resolve {}: {}", file.string(), ec.message());
  // The link's directory decides who can redirect the link; the target's
  // directory who can replace the file.
  if (std::string why = check_one(file.parent_path(), true); !why.empty()) return why;
  if (std::string why = check_one(target.parent_path(), true); !why.empty()) return why;
  std::string why = check_one(target, false);
  if (!why.empty() && target != file)
    why += fmt::format(" (the target of symlink {})", file.string());
  return why;
}

std::string sha256_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  PLEXUS_CHECK(in.good(), ErrorCode::IoError, "cannot open {} to hash it", file.string());
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  PLEXUS_CHECK(ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1, ErrorCode::Internal,
               "OpenSSL cannot start a SHA-256 digest");
  std::array<char, 1 << 16> buf;
  while (in) {
    in.read(buf.data(), buf.size());
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  PLEXUS_CHECK(in.eof(), ErrorCode::IoError, "reading {} failed", file.string());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest;
  unsigned int size = 0;
  PLEXUS_CHECK(EVP_DigestFinal_ex(ctx.get(), digest.data(), &size) == 1, ErrorCode::Internal,
               "OpenSSL cannot finish a SHA-256 digest");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace plexus
