// Loading safetensors files and buffers into cpu tensors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "plexus/safetensors.h"
#include "safetensors_header.h"

namespace plexus {

using namespace safetensors_detail;

// The format is little-endian; plexus tensors hold host-order values.
static_assert(std::endian::native == std::endian::little,
              "safetensors loading assumes a little-endian host");

namespace {

uint64_t read_length(const uint8_t* p) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | p[i];
  return n;
}

// A cpu tensor for `e` whose bytes `fill` writes (fill(dst, nbytes)).
template <typename Fill>
Tensor make_tensor(const Entry& e, Fill&& fill) {
  size_t nbytes = e.end - e.begin;
  Storage storage(new StorageImpl(Device(), nbytes));
  if (nbytes > 0) fill(storage->data(), nbytes);
  return Tensor::make(std::move(storage), e.dtype, e.shape, contiguous_strides(e.shape));
}

// Closes a file descriptor when the load ends, however it ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly n bytes at `offset`; a short read means the file shrank.
void read_at(int fd, void* dst, size_t n, uint64_t offset, std::string_view source) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      fail_file(ErrorCode::IoError, source, "read failed at byte {}: {}", offset,
                std::strerror(errno));
    if (got == 0)
      fail_file(ErrorCode::IoError, source, "file ended at byte {} while reading (did it change?)",
                offset);
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

}  // namespace

const Tensor& Safetensors::at(std::string_view name) const {
  auto it = tensors.find(std::string(name));
  if (it != tensors.end()) return it->second;
  std::string names;
  for (const auto& [n, _] : tensors) names += (names.empty() ? "" : ", ") + quote_name(n);
  fail(ErrorCode::NotFound, "no tensor {} in this safetensors file (it has: {})", quote_name(name),
       names.empty() ? "no tensors" : names);
}

Safetensors parse_safetensors(std::span<const uint8_t> bytes, std::string_view source) {
  uint64_t header_length = bytes.size() >= 8 ? read_length(bytes.data()) : 0;
  uint64_t data_size = data_section_size(header_length, bytes.size(), source);
  std::string_view json(reinterpret_cast<const char*>(bytes.data()) + 8, header_length);
  Header h = parse_header(json, data_size, source);
  const uint8_t* data = bytes.data() + 8 + header_length;
  Safetensors out;
  out.metadata = std::move(h.metadata);
  for (const Entry& e : h.entries)
    out.tensors.emplace(
        e.name, make_tensor(e, [&](void* dst, size_t n) { std::memcpy(dst, data + e.begin, n); }));
  return out;
}

Safetensors load_safetensors(const std::filesystem::path& path) {
  const std::string source = path.string();
  Fd f{::open(source.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0)
    fail_file(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::IoError, source, "cannot open: {}",
              std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    fail_file(ErrorCode::IoError, source, "cannot stat: {}", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail_file(ErrorCode::InvalidArgument, source, "not a regular file");
  uint64_t file_size = static_cast<uint64_t>(st.st_size);

  uint8_t prefix[8] = {};
  if (file_size >= 8) read_at(f.fd, prefix, 8, 0, source);
  uint64_t header_length = read_length(prefix);
  uint64_t data_size = data_section_size(header_length, file_size, source);
  // Bounded by both the file size and kSafetensorsMaxHeaderBytes by now.
  std::string json(header_length, '\0');
  read_at(f.fd, json.data(), json.size(), 8, source);
  Header h = parse_header(json, data_size, source);

  const uint64_t data_start = 8 + header_length;
  Safetensors out;
  out.metadata = std::move(h.metadata);
  for (const Entry& e : h.entries)
    out.tensors.emplace(e.name, make_tensor(e, [&](void* dst, size_t n) {
                          read_at(f.fd, dst, n, data_start + e.begin, source);
                        }));
  return out;
}

}  // namespace plexus
