#include "safetensors_header.h"

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "plexus/safetensors.h"

namespace plexus::safetensors_detail {

using nlohmann::json;

namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::array<std::string_view, kNumDTypes> kTags = {"BOOL", "U8",  "I8",   "I16", "I32",
                                                            "I64",  "F16", "BF16", "F32", "F64"};
// Names the format defines that have no plexus dtype.
constexpr std::array<std::string_view, 10> kUnsupportedTags = {
    "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64"};
constexpr std::string_view kTagList = "BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64";
// A valid header nests no deeper than object -> entry -> shape array.
constexpr int kMaxDepth = 3;

[[noreturn]] void fail_bad(std::string_view source, std::string_view what) {
  fail_file(ErrorCode::InvalidArgument, source, "{}", what);
}

// Parses the JSON, refusing duplicate keys (nlohmann would keep the last one
// silently) and nesting no valid header has (which would only cost memory).
json parse_json(std::string_view text, std::string_view source) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  auto check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxDepth)
          fail_bad(source, fmt::format("header nests objects or arrays deeper than the format "
                                       "allows ({} levels)",
                                       kMaxDepth));
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.back().insert(parsed.get<std::string>()).second)
          fail_bad(source, fmt::format("header has the key {} twice{}",
                                       quote_name(parsed.get<std::string>()),
                                       depth == 1 ? " (duplicate tensor name)" : ""));
        break;
      default:
        break;
    }
    return true;
  };
  if (text.empty() || text.front() != '{')
    fail_bad(source, "header does not start with '{' (expected a JSON object)");
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::exception& e) {
    // nlohmann quotes the whole last token, which a hostile header makes huge.
    std::string why = e.what();
    if (why.size() > 300) why = why.substr(0, 300) + "...";
    fail_bad(source, fmt::format("header is not valid UTF-8 JSON: {}", why));
  }
}

// A JSON number that is a non-negative integer fitting in `max`.
uint64_t unsigned_field(const json& v, uint64_t max, std::string_view source,
                        std::string_view tensor, std::string_view field) {
  auto bad = [&](std::string_view why) {
    fail_bad(source,
             fmt::format("tensor {}: {} has {} {}", quote_name(tensor), field, why, v.dump()));
  };
  if (v.is_number_integer() && !v.is_number_unsigned()) bad("a negative value");
  if (!v.is_number_unsigned()) bad("a value that is not a non-negative integer:");
  uint64_t u = v.get<uint64_t>();
  if (u > max) bad("a value too large:");
  return u;
}

DType parse_dtype(const json& v, std::string_view source, std::string_view tensor) {
  if (!v.is_string())
    fail_bad(source, fmt::format("tensor {}: dtype is a {}, expected a string such as \"F32\"",
                                 quote_name(tensor), v.type_name()));
  const std::string& tag = v.get_ref<const std::string&>();
  for (int i = 0; i < kNumDTypes; ++i)
    if (tag == kTags[i]) return static_cast<DType>(i);
  if (std::find(kUnsupportedTags.begin(), kUnsupportedTags.end(), tag) != kUnsupportedTags.end())
    fail_file(ErrorCode::Unsupported, source,
              "tensor {} has dtype {}, which plexus does not have (it has {})", quote_name(tensor),
              tag, kTagList);
  fail_bad(source, fmt::format("tensor {} has unknown dtype {} (expected one of {})",
                               quote_name(tensor), quote_name(tag), kTagList));
}

Shape parse_shape(const json& v, std::string_view source, std::string_view tensor) {
  if (!v.is_array())
    fail_bad(source, fmt::format("tensor {}: shape is a {}, expected an array of sizes",
                                 quote_name(tensor), v.type_name()));
  Shape shape;
  for (const json& s : v)
    shape.push_back(static_cast<int64_t>(
        unsigned_field(s, std::numeric_limits<int64_t>::max(), source, tensor, "shape")));
  return shape;
}

// Bytes the shape needs. Its sizes' product must fit in int64 even counting
// sizes of 0 as 1: contiguous strides are products of the trailing sizes.
uint64_t shape_bytes(const Entry& e, std::string_view source) {
  int64_t span = 1;
  bool empty = false;
  for (int64_t s : e.shape) {
    empty |= s == 0;
    if (__builtin_mul_overflow(span, std::max<int64_t>(s, 1), &span))
      fail_bad(source, fmt::format("tensor {}: shape {} has more elements than fit in int64 "
                                   "(counting sizes of 0 as 1, as its strides do)",
                                   quote_name(e.name), shape_str(e.shape)));
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(span), itemsize(e.dtype), &bytes))
    fail_bad(source, fmt::format("tensor {}: shape {} of {} overflows 64-bit byte counts",
                                 quote_name(e.name), shape_str(e.shape), dtype_tag(e.dtype)));
  return empty ? 0 : bytes;
}

void parse_offsets(const json& v, Entry& e, uint64_t data_size, std::string_view source) {
  if (!v.is_array() || v.size() != 2)
    fail_bad(source, fmt::format("tensor {}: data_offsets is {}, expected [begin, end]",
                                 quote_name(e.name), v.dump().substr(0, 80)));
  uint64_t max = std::numeric_limits<uint64_t>::max();
  e.begin = unsigned_field(v[0], max, source, e.name, "data_offsets");
  e.end = unsigned_field(v[1], max, source, e.name, "data_offsets");
  if (e.begin > e.end)
    fail_bad(source, fmt::format("tensor {}: data_offsets [{}, {}] has begin after end",
                                 quote_name(e.name), e.begin, e.end));
  if (e.end > data_size)
    fail_bad(source, fmt::format("tensor {}: data_offsets [{}, {}] end past the data section "
                                 "({} bytes)",
                                 quote_name(e.name), e.begin, e.end, data_size));
  uint64_t need = shape_bytes(e, source);
  if (e.end - e.begin != need)
    fail_bad(source, fmt::format("tensor {}: data_offsets [{}, {}] hold {} bytes, but shape {} "
                                 "of {} needs {}",
                                 quote_name(e.name), e.begin, e.end, e.end - e.begin,
                                 shape_str(e.shape), dtype_tag(e.dtype), need));
}

Entry parse_entry(const std::string& name, const json& v, uint64_t data_size,
                  std::string_view source) {
  if (!v.is_object())
    fail_bad(source, fmt::format("tensor {}: entry is a {}, expected an object with dtype, "
                                 "shape and data_offsets",
                                 quote_name(name), v.type_name()));
  for (const auto& [field, _] : v.items())
    if (field != "dtype" && field != "shape" && field != "data_offsets")
      fail_bad(source, fmt::format("tensor {}: unexpected field {} (expected dtype, shape and "
                                   "data_offsets)",
                                   quote_name(name), quote_name(field)));
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!v.contains(field))
      fail_bad(source, fmt::format("tensor {}: missing field '{}'", quote_name(name), field));
  Entry e;
  e.name = name;
  e.dtype = parse_dtype(v.at("dtype"), source, name);
  e.shape = parse_shape(v.at("shape"), source, name);
  parse_offsets(v.at("data_offsets"), e, data_size, source);
  return e;
}

std::map<std::string, std::string> parse_metadata(const json& v, std::string_view source) {
  if (!v.is_object())
    fail_bad(source,
             fmt::format("__metadata__ is a {}, expected an object of strings", v.type_name()));
  std::map<std::string, std::string> m;
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string())
      fail_bad(source, fmt::format("__metadata__ value of {} is a {}, expected a string",
                                   quote_name(key), value.type_name()));
    m.emplace(key, value.get<std::string>());
  }
  return m;
}

// The entries, sorted by offset, must tile [0, data_size) with no gap or overlap.
void check_coverage(std::vector<Entry>& entries, uint64_t data_size, std::string_view source) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered)
      fail_bad(source, fmt::format("tensor {}: data_offsets [{}, {}] overlap tensor {} [{}, {}]",
                                   quote_name(e.name), e.begin, e.end, quote_name(previous->name),
                                   previous->begin, previous->end));
    if (e.begin > covered)
      fail_bad(source, fmt::format("bytes [{}, {}) of the data section belong to no tensor (the "
                                   "format allows no holes)",
                                   covered, e.begin));
    covered = e.end;
    previous = &e;
  }
  if (covered != data_size)
    fail_bad(source, fmt::format("bytes [{}, {}) of the data section belong to no tensor (the "
                                 "format allows no holes)",
                                 covered, data_size));
}

// Throws naming `what` when `s` is not valid UTF-8 (the header is JSON text).
void check_utf8(const std::string& s, std::string_view destination, std::string_view what) {
  try {
    (void)json(s).dump();
  } catch (const json::exception&) {
    fail_file(ErrorCode::InvalidArgument, destination, "{} {} is not valid UTF-8", what,
              quote_name(s));
  }
}

}  // namespace

std::string_view dtype_tag(DType t) {
  return kTags[static_cast<int>(t)];
}

std::string quote_name(std::string_view name) {
  constexpr size_t kMax = 120;
  if (name.size() <= kMax) return fmt::format("'{}'", name);
  return fmt::format("'{}...' ({} bytes)", name.substr(0, kMax), name.size());
}

uint64_t data_section_size(uint64_t header_length, uint64_t file_size, std::string_view source) {
  if (file_size < 8)
    fail_bad(source,
             fmt::format("file has {} bytes, fewer than the 8-byte header length", file_size));
  if (header_length > kSafetensorsMaxHeaderBytes)
    fail_bad(source, fmt::format("header length {} is more than the {} bytes accepted",
                                 header_length, kSafetensorsMaxHeaderBytes));
  if (header_length > file_size - 8)
    fail_bad(source, fmt::format("header length {} is past the end of the file ({} bytes after "
                                 "the length)",
                                 header_length, file_size - 8));
  return file_size - 8 - header_length;
}

Header parse_header(std::string_view text, uint64_t data_size, std::string_view source) {
  json j = parse_json(text, source);
  Header h;
  for (const auto& [key, value] : j.items()) {
    if (key == kMetadataKey)
      h.metadata = parse_metadata(value, source);
    else
      h.entries.push_back(parse_entry(key, value, data_size, source));
  }
  check_coverage(h.entries, data_size, source);
  return h;
}

std::string make_header(std::span<const Entry> entries,
                        const std::map<std::string, std::string>& metadata,
                        std::string_view destination) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) {
      check_utf8(key, destination, "metadata key");
      check_utf8(value, destination, "metadata value");
      m[key] = value;
    }
    j[std::string(kMetadataKey)] = std::move(m);
  }
  for (const Entry& e : entries) {
    check_utf8(e.name, destination, "tensor name");
    j[e.name] = {{"dtype", dtype_tag(e.dtype)},
                 {"shape", std::vector<int64_t>(e.shape.begin(), e.shape.end())},
                 {"data_offsets", {e.begin, e.end}}};
  }
  std::string text = j.dump();
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');
  return text;
}

}  // namespace plexus::safetensors_detail
