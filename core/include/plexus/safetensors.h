// safetensors files (https://github.com/huggingface/safetensors, format
// version 1): named tensors plus a string-to-string metadata map. Loading
// checks every header field against the file before it allocates or reads,
// so a malformed or hostile file gives a plexus::Error, never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "plexus/tensor.h"

namespace plexus {

// The contents of a safetensors file: tensors on the cpu, contiguous, by name.
struct Safetensors {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;  // the header's "__metadata__"

  // The tensor called `name`; throws Error(NotFound) naming it and the file's tensors.
  const Tensor& at(std::string_view name) const;
};

// Largest header accepted (the JSON part), as the reference implementation: 100 MB.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// Reads a file. Errors name the file, the tensor and what was wrong:
// NotFound or IoError when it cannot be read, InvalidArgument when it is not
// a well-formed safetensors file, Unsupported for a dtype plexus lacks (U16,
// U32, U64, F8_*, ...).
Safetensors load_safetensors(const std::filesystem::path& path);
// The same checks on bytes already in memory; `source` names them in errors.
Safetensors parse_safetensors(std::span<const uint8_t> bytes, std::string_view source = "<memory>");

// Writes tensors (on any device, any strides; copied to the cpu one at a time)
// and metadata to `path`. Tensors are stored in name order, the header padded
// to 8 bytes. Writes a temporary file beside `path` and renames it into place,
// so a failed save leaves `path` as it was. A tensor named "__metadata__", an
// undefined tensor or a name or value that is not UTF-8 is InvalidArgument.
void save_safetensors(const std::filesystem::path& path,
                      const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace plexus
