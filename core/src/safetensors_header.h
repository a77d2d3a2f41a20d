// The safetensors header: its 8-byte length prefix and JSON part, parsed and
// checked against the data section, and built for saving.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plexus/dtype.h"
#include "plexus/error.h"
#include "plexus/shape.h"

namespace plexus::safetensors_detail {

// One tensor's header entry; begin and end are byte offsets into the data section.
struct Entry {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct Header {
  std::vector<Entry> entries;  // by begin offset: the order of the data section
  std::map<std::string, std::string> metadata;
};

// The format's name of a plexus dtype ("F32", "BOOL", ...).
std::string_view dtype_tag(DType t);

// A name as it appears in errors: quoted, and cut short when long (a hostile
// file may carry megabyte names).
std::string quote_name(std::string_view name);

// Throws Error(code) "safetensors file 'SOURCE': MESSAGE".
template <typename... Args>
[[noreturn]] void fail_file(ErrorCode code, std::string_view source, fmt::format_string<Args...> f,
                            Args&&... args) {
  throw Error(code, fmt::format("safetensors file {}: {}", quote_name(source),
                                fmt::format(f, std::forward<Args>(args)...)));
}

// Checks the little-endian header length read from the first 8 bytes against
// the file size; returns the size of the data section after the header.
uint64_t data_section_size(uint64_t header_length, uint64_t file_size, std::string_view source);
// Parses the JSON header and checks every entry against a data section of
// `data_size` bytes: known dtypes, shapes, offsets that match the shapes and
// cover the data section exactly once.
Header parse_header(std::string_view json, uint64_t data_size, std::string_view source);

// The header for these entries (in this order, offsets already set) and
// metadata, padded with spaces so that 8 + its length is a multiple of 8.
std::string make_header(std::span<const Entry> entries,
                        const std::map<std::string, std::string>& metadata,
                        std::string_view destination);

}  // namespace plexus::safetensors_detail
