// Saving tensors to a safetensors file, atomically: a temporary file beside
// the destination, renamed into place only once everything is written.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "plexus/safetensors.h"
#include "safetensors_header.h"

namespace plexus {

using namespace safetensors_detail;

namespace {

// An open temporary file that is removed unless commit() renamed it.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& destination) : destination_(destination) {
    std::filesystem::path dir = destination.parent_path();
    std::random_device rd;
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      path_ = dir / fmt::format(".{}.tmp-{:08x}", destination.filename().string(), rd());
      // 0666 and the umask, as any new file; O_EXCL so we never clobber another's.
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0)
      fail_file(ErrorCode::IoError, destination.string(),
                "cannot create a temporary file in {}: {}",
                quote_name(dir.empty() ? "." : dir.string()), std::strerror(errno));
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t put = ::write(fd_, p, n);
      if (put < 0 && errno == EINTR) continue;
      if (put < 0)
        fail_file(ErrorCode::IoError, destination_.string(), "write failed: {}",
                  std::strerror(errno));
      p += put;
      n -= static_cast<size_t>(put);
    }
  }
  // Flushes to disk and renames over the destination.
  void commit() {
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      fd_ = -1;
      fail_file(ErrorCode::IoError, destination_.string(), "write failed: {}",
                std::strerror(errno));
    }
    fd_ = -1;
    if (::rename(path_.c_str(), destination_.c_str()) != 0)
      fail_file(ErrorCode::IoError, destination_.string(), "cannot rename {} into place: {}",
                quote_name(path_.string()), std::strerror(errno));
    committed_ = true;
  }

 private:
  std::filesystem::path destination_;
  std::filesystem::path path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Entries in name order, laid end to end in the data section.
std::vector<Entry> layout(const std::map<std::string, Tensor>& tensors, std::string_view dest) {
  std::vector<Entry> entries;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__")
      fail_file(ErrorCode::InvalidArgument, dest,
                "a tensor cannot be named '__metadata__' (the format reserves it)");
    if (!t.defined())
      fail_file(ErrorCode::InvalidArgument, dest, "tensor {} is undefined", quote_name(name));
    Entry e{name, t.dtype(), Shape(t.sizes().begin(), t.sizes().end()), offset,
            offset + t.nbytes()};
    offset = e.end;
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

void save_safetensors(const std::filesystem::path& path,
                      const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  const std::string dest = path.string();
  std::vector<Entry> entries = layout(tensors, dest);
  // The strings alone are a lower bound of the header's size: refuse before building it.
  uint64_t text = 0;
  for (const auto& [key, value] : metadata) text += key.size() + value.size();
  for (const Entry& e : entries) text += e.name.size();
  std::string header =
      text > kSafetensorsMaxHeaderBytes ? std::string() : make_header(entries, metadata, dest);
  if (text > kSafetensorsMaxHeaderBytes || header.size() > kSafetensorsMaxHeaderBytes)
    fail_file(ErrorCode::InvalidArgument, dest,
              "the header would be at least {} bytes, more than the {} that loaders accept "
              "(are the names and metadata that large?)",
              std::max<uint64_t>(text, header.size()), kSafetensorsMaxHeaderBytes);

  TempFile file(path);
  uint8_t prefix[8];
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<uint8_t>(header.size() >> (8 * i));
  file.write(prefix, 8);
  file.write(header.data(), header.size());
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    // One host copy at a time; contiguous() orders any view row-major.
    Tensor host = t.cpu().contiguous();
    file.write(host.data_ptr(), host.nbytes());
  }
  file.commit();
}

}  // namespace plexus
