// safetensors load and save: round trips of every dtype, files written by hand
// from the format's description, and every way a file can be malformed.
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "plexus/ops.h"
#include "plexus/safetensors.h"
#include "support/error_of.h"
#include "support/test_backend.h"

using namespace plexus;
using plexus::testing::error_of;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path =
        fs::temp_directory_path() / fmt::format("plexus-safetensors-{}-{}", ::getpid(), counter++);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path operator/(const std::string& name) const { return path / name; }
};

using Bytes = std::vector<uint8_t>;

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
// A file as the format describes it: little-endian u64 header length, header, data.
Bytes st_file(std::string_view header, const Bytes& data = {},
              std::optional<uint64_t> length = std::nullopt) {
  uint64_t n = length.value_or(header.size());
  Bytes b;
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(n >> (8 * i)));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}
// The raw bytes of a contiguous cpu tensor.
Bytes tensor_bytes(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  auto* p = static_cast<const uint8_t*>(c.data_ptr());
  return Bytes(p, p + c.nbytes());
}
std::vector<int64_t> sizes_of(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

// A tensor of `sizes` whose bytes are seeded noise (0 or 1 for bool).
Tensor noise(DType dtype, std::vector<int64_t> sizes, uint32_t seed) {
  Tensor t = empty(sizes, dtype);
  std::mt19937 rng(seed);
  auto* p = static_cast<uint8_t*>(t.data_ptr());
  for (size_t i = 0; i < t.nbytes(); ++i)
    p[i] = static_cast<uint8_t>(dtype == DType::Bool ? rng() & 1 : rng());
  return t;
}

// The error loading these bytes gives, from a file; the same bytes parsed in
// memory must fail with the same message.
Error load_error(const Bytes& bytes) {
  TempDir dir;
  fs::path p = dir / "bad.safetensors";
  write_bytes(p, bytes);
  Error from_file = error_of([&] { load_safetensors(p); });
  Error from_memory = error_of([&] { parse_safetensors(bytes, p.string()); });
  CHECK(from_memory.message() == from_file.message());
  CHECK_THAT(from_file.message(), Catch::Contains(p.string()));  // names the file
  return from_file;
}
Error header_error(std::string_view header, const Bytes& data = {}) {
  return load_error(st_file(header, data));
}
std::string entry(std::string_view dtype, std::string_view shape, uint64_t begin, uint64_t end) {
  return fmt::format(R"({{"dtype":"{}","shape":{},"data_offsets":[{},{}]}})", dtype, shape, begin,
                     end);
}

}  // namespace

TEST_CASE("safetensors: every dtype round trips with its shape and bytes") {
  TempDir dir;
  std::map<std::string, Tensor> tensors;
  uint32_t seed = 1;
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    std::string name(dtype_name(t));
    tensors[name + ".matrix"] = noise(t, {3, 5}, seed++);
    tensors[name + ".scalar"] = noise(t, {}, seed++);     // 0-d
    tensors[name + ".empty"] = noise(t, {0, 4}, seed++);  // no elements
    tensors[name + ".cube"] = noise(t, {2, 1, 3, 2}, seed++);
  }
  std::map<std::string, std::string> metadata = {{"format", "pt"},
                                                 {"note", "zw\u00f6lf \u2192 12"}};
  fs::path p = dir / "all.safetensors";
  save_safetensors(p, tensors, metadata);

  Safetensors loaded = load_safetensors(p);
  CHECK(loaded.metadata == metadata);
  REQUIRE(loaded.tensors.size() == tensors.size());
  for (const auto& [name, t] : tensors) {
    INFO(name);
    const Tensor& got = loaded.at(name);
    CHECK(got.dtype() == t.dtype());
    CHECK(sizes_of(got) == sizes_of(t));
    CHECK(got.device().is_cpu());
    CHECK(got.is_contiguous());
    CHECK(tensor_bytes(got) == tensor_bytes(t));
  }
}

TEST_CASE("safetensors: values survive, not just bytes") {
  TempDir dir;
  fs::path p = dir / "v.safetensors";
  Tensor f = tensor<float>({1.5f, -2.0f, 0.25f, 1e30f}, {2, 2});
  save_safetensors(p, {{"f", f}, {"h", f.to(DType::F16)}, {"i", tensor<int64_t>({-7, 1LL << 40})}});
  Safetensors s = load_safetensors(p);
  CHECK(s.at("f").tolist<float>() == std::vector<float>{1.5f, -2.0f, 0.25f, 1e30f});
  CHECK(s.at("h").tolist<float>() ==
        std::vector<float>{1.5f, -2.0f, 0.25f, std::numeric_limits<float>::infinity()});
  CHECK(s.at("i").tolist<int64_t>() == std::vector<int64_t>{-7, 1LL << 40});
}

TEST_CASE("safetensors: non-contiguous views are saved in row-major order") {
  TempDir dir;
  fs::path p = dir / "views.safetensors";
  Tensor base = arange(24, DType::F32).view({2, 3, 4});
  std::map<std::string, Tensor> views = {
      {"transposed", base.transpose(0, 2)},
      {"stepped", base.slice(2, 1, 4, 2)},
      {"selected", base.select(1, 2)},
      {"expanded", arange(3, DType::I32).view({3, 1}).expand({3, 4})},
  };
  for (const auto& [name, v] : views) REQUIRE_FALSE(v.is_contiguous());
  save_safetensors(p, views);
  Safetensors s = load_safetensors(p);
  for (const auto& [name, v] : views) {
    INFO(name);
    CHECK(sizes_of(s.at(name)) == sizes_of(v));
    CHECK(s.at(name).tolist<double>() == v.tolist<double>());
  }
}

TEST_CASE("safetensors: tensors on another device are copied to the cpu to be saved") {
  TempDir dir;
  fs::path p = dir / "dev.safetensors";
  Device dev(plexus::testing::testdev(), 0);
  Tensor host = arange(10, DType::F64).view({2, 5});
  save_safetensors(p, {{"x", host.to(dev)}, {"xt", host.to(dev).t()}});
  Safetensors s = load_safetensors(p);
  CHECK(s.at("x").tolist<double>() == host.tolist<double>());
  CHECK(s.at("xt").tolist<double>() == host.t().tolist<double>());
}

TEST_CASE("safetensors: saved files are deterministic, in name order, header padded to 8") {
  TempDir dir;
  std::map<std::string, Tensor> tensors = {{"b", arange(3, DType::I16)},
                                           {"a", arange(5, DType::U8)},
                                           {"c", scalar_tensor(2.5, DType::F64)}};
  save_safetensors(dir / "1.safetensors", tensors, {{"k", "v"}});
  save_safetensors(dir / "2.safetensors", tensors, {{"k", "v"}});
  Bytes bytes = read_bytes(dir / "1.safetensors");
  CHECK(bytes == read_bytes(dir / "2.safetensors"));

  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  CHECK((8 + n) % 8 == 0);
  std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<ptrdiff_t>(n));
  auto j = nlohmann::json::parse(header);  // trailing padding is spaces, valid JSON
  CHECK(j["a"]["data_offsets"] == nlohmann::json::array({0, 5}));
  CHECK(j["b"]["data_offsets"] == nlohmann::json::array({5, 11}));
  CHECK(j["c"]["data_offsets"] == nlohmann::json::array({11, 19}));
  CHECK(j["c"]["shape"] == nlohmann::json::array());
  CHECK(j["b"]["dtype"] == "I16");
  CHECK(j["__metadata__"]["k"] == "v");
  CHECK(bytes.size() == 8 + n + 19);
  // An empty map is a valid file too.
  save_safetensors(dir / "empty.safetensors", {});
  CHECK(load_safetensors(dir / "empty.safetensors").tensors.empty());
}

TEST_CASE("safetensors: a file written by hand from the format description loads") {
  // Header entries in arbitrary order, data laid out as the offsets say,
  // values little-endian: f32 1, -2.5, 0.5, 3; i64 -7; f16 1; bf16 -2; bool true.
  std::string header =
      R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("__metadata__":{"format":"pt"},)"
      R"("b":{"shape":[],"dtype":"I64","data_offsets":[16,24]},)"
      R"("h":{"dtype":"F16","shape":[1],"data_offsets":[24,26]},)"
      R"("g":{"dtype":"BF16","shape":[1,1],"data_offsets":[26,28]},)"
      R"("z":{"dtype":"BOOL","shape":[1],"data_offsets":[28,29]},)"
      R"("e":{"dtype":"F64","shape":[0,3],"data_offsets":[29,29]}}    )";  // padded
  Bytes data = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00,
                0x00, 0x3f, 0x00, 0x00, 0x40, 0x40, 0xf9, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0xff, 0x00, 0x3c, 0x00, 0xc0, 0x01};
  Bytes file = st_file(header, data);
  TempDir dir;
  write_bytes(dir / "hand.safetensors", file);
  for (const Safetensors& s :
       {load_safetensors(dir / "hand.safetensors"), parse_safetensors(file)}) {
    CHECK(s.metadata == std::map<std::string, std::string>{{"format", "pt"}});
    CHECK(s.at("w").dtype() == DType::F32);
    CHECK(sizes_of(s.at("w")) == std::vector<int64_t>{2, 2});
    CHECK(s.at("w").tolist<float>() == std::vector<float>{1.0f, -2.5f, 0.5f, 3.0f});
    CHECK(s.at("b").dim() == 0);
    CHECK(s.at("b").item<int64_t>() == -7);
    CHECK(s.at("h").item<float>() == 1.0f);
    CHECK(s.at("g").item<float>() == -2.0f);
    CHECK(s.at("z").item<bool>());
    CHECK(sizes_of(s.at("e")) == std::vector<int64_t>{0, 3});
    CHECK(s.at("e").dtype() == DType::F64);
  }
}

TEST_CASE("safetensors: asking for a tensor the file lacks names it and what there is") {
  Safetensors s = parse_safetensors(st_file(R"({"a":)" + entry("U8", "[1]", 0, 1) + "}", {7}));
  Error e = error_of([&] { s.at("fc1.weight"); });
  CHECK(e.code() == ErrorCode::NotFound);
  CHECK_THAT(e.message(), Catch::Contains("'fc1.weight'") && Catch::Contains("'a'"));
}

TEST_CASE("safetensors: a file that cannot be read is NotFound or IoError") {
  TempDir dir;
  Error missing = error_of([&] { load_safetensors(dir / "nope.safetensors"); });
  CHECK(missing.code() == ErrorCode::NotFound);
  CHECK_THAT(missing.message(), Catch::Contains("nope.safetensors"));
  Error directory = error_of([&] { load_safetensors(dir.path); });
  CHECK_THAT(directory.message(), Catch::Contains("not a regular file"));
}

TEST_CASE("safetensors: malformed length prefix") {
  SECTION("shorter than 8 bytes") {
    Error e = load_error({1, 0, 0});
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK_THAT(e.message(), Catch::Contains("3 bytes, fewer than the 8-byte header length"));
    CHECK_THAT(load_error({}).message(), Catch::Contains("0 bytes"));
  }
  SECTION("header length past the end of the file") {
    Error e = load_error(st_file("{}", {}, 3));
    CHECK_THAT(e.message(), Catch::Contains("header length 3 is past the end of the file (2"));
  }
  SECTION("absurd header length is refused before anything is allocated") {
    Error e = load_error(st_file("{}", {}, ~0ull));
    CHECK_THAT(e.message(), Catch::Contains("is more than the 100000000 bytes accepted"));
    CHECK_THAT(load_error(st_file("{}", {}, 100'000'001)).message(),
               Catch::Contains("header length 100000001 is more than"));
  }
}

TEST_CASE("safetensors: malformed JSON header") {
  CHECK_THAT(header_error("not json").message(), Catch::Contains("does not start with '{'"));
  CHECK_THAT(header_error("[1, 2]").message(), Catch::Contains("does not start with '{'"));
  CHECK_THAT(header_error(R"({"a": )").message(), Catch::Contains("not valid UTF-8 JSON"));
  CHECK_THAT(header_error(R"({} {})").message(), Catch::Contains("not valid UTF-8 JSON"));
  CHECK_THAT(header_error("{\"\xff\xfe\": 1}").message(), Catch::Contains("not valid UTF-8 JSON"));
  CHECK_THAT(header_error("{\"\\ud800\": 1}").message(),  // lone surrogate
             Catch::Contains("not valid UTF-8 JSON"));
  CHECK_THAT(header_error(std::string("{\0}", 3)).message(),
             Catch::Contains("not valid UTF-8 JSON"));
  CHECK_THAT(
      header_error(R"({"a":{"dtype":"F32","shape":[[[1]]],"data_offsets":[0,4]}})").message(),
      Catch::Contains("deeper than the format allows"));
  CHECK_THAT(header_error(std::string(100000, '[')).message(),
             Catch::Contains("does not start with '{'"));
  CHECK_THAT(header_error("{\"a\":" + std::string(100000, '[')).message(),
             Catch::Contains("deeper than the format allows"));
}

TEST_CASE("safetensors: malformed entries") {
  Bytes four(4);
  auto bad = [&](const std::string& e) {
    return header_error(R"({"t":)" + e + "}", four).message();
  };
  CHECK_THAT(bad("5"), Catch::Contains("tensor 't': entry is a number, expected an object"));
  CHECK_THAT(bad(R"({"dtype":"F32","data_offsets":[0,4]})"),
             Catch::Contains("tensor 't': missing field 'shape'"));
  CHECK_THAT(bad(R"({"shape":[1],"data_offsets":[0,4]})"),
             Catch::Contains("tensor 't': missing field 'dtype'"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1]})"),
             Catch::Contains("tensor 't': missing field 'data_offsets'"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1})"),
             Catch::Contains("tensor 't': unexpected field 'extra'"));
  CHECK_THAT(bad(R"({"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]})"),
             Catch::Contains("the key 'dtype' twice"));
  CHECK_THAT(bad(R"({"dtype":32,"shape":[1],"data_offsets":[0,4]})"),
             Catch::Contains("tensor 't': dtype is a number, expected a string"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":"1","data_offsets":[0,4]})"),
             Catch::Contains("tensor 't': shape is a string, expected an array"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})"),
             Catch::Contains("shape has a value that is not a non-negative integer: 1.0"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[true],"data_offsets":[0,4]})"),
             Catch::Contains("shape has a value that is not a non-negative integer: true"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})"),
             Catch::Contains("data_offsets is [0], expected [begin, end]"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1],"data_offsets":{"a":0}})"),
             Catch::Contains("expected [begin, end]"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1],"data_offsets":[0,"4"]})"),
             Catch::Contains("data_offsets has a value that is not a non-negative integer"));
  CHECK_THAT(bad(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,4]})"),
             Catch::Contains("data_offsets has a negative value -4"));
}

TEST_CASE("safetensors: dtypes") {
  Bytes two(2);
  SECTION("unknown dtype") {
    Error e = header_error(R"({"t":)" + entry("F17", "[1]", 0, 2) + "}", two);
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK_THAT(e.message(), Catch::Contains("tensor 't' has unknown dtype 'F17' (expected one of "
                                            "BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64)"));
  }
  SECTION("dtypes of the format that plexus lacks") {
    for (std::string tag : {"U16", "U32", "U64", "F8_E4M3", "F8_E5M2"}) {
      INFO(tag);
      Error e = header_error(R"({"t":)" + entry(tag, "[1]", 0, 2) + "}", two);
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK_THAT(e.message(),
                 Catch::Contains("tensor 't' has dtype " + tag + ", which plexus does not have"));
    }
  }
}

TEST_CASE("safetensors: shapes") {
  CHECK_THAT(header_error(R"({"t":)" + entry("F32", "[2,-1]", 0, 0) + "}").message(),
             Catch::Contains("tensor 't': shape has a negative value -1"));
  CHECK_THAT(header_error(R"({"t":)" + entry("U8", "[9223372036854775808]", 0, 0) + "}").message(),
             Catch::Contains("shape has a value too large: 9223372036854775808"));
  CHECK_THAT(header_error(R"({"t":)" + entry("U8", "[99999999999999999999]", 0, 0) + "}")
                 .message(),  // beyond u64: JSON gives a float
             Catch::Contains("not a non-negative integer"));
  // Elements beyond int64, though the byte count would fit in u64.
  CHECK_THAT(
      header_error(R"({"t":)" + entry("U8", "[3037000500,3037000500]", 0, 0) + "}").message(),
      Catch::Contains("shape [3037000500, 3037000500] has more elements than fit in int64"));
  CHECK_THAT(
      header_error(R"({"t":)" + entry("F32", "[4611686018427387904,4]", 0, 0) + "}").message(),
      Catch::Contains("more elements than fit in int64"));
  // Elements fit in int64, bytes do not fit in u64.
  CHECK_THAT(header_error(R"({"t":)" + entry("F64", "[4611686018427387904]", 0, 0) + "}").message(),
             Catch::Contains("shape [4611686018427387904] of F64 overflows 64-bit byte counts"));
  // No elements, but strides [2^64, 4, 1] would overflow (UBSan found this in the core's
  // contiguous_strides).
  CHECK_THAT(
      header_error(R"({"t":)" + entry("U8", "[0,4611686018427387904,4]", 0, 0) + "}").message(),
      Catch::Contains("has more elements than fit in int64 (counting sizes of 0 as 1"));
  // Sizes of 0 with sane others are fine.
  Safetensors ok =
      parse_safetensors(st_file(R"({"t":)" + entry("U8", "[0,1000000,4]", 0, 0) + "}"));
  CHECK(ok.at("t").numel() == 0);
}

TEST_CASE("safetensors: data offsets") {
  Bytes eight(8);
  auto two = [&](const std::string& a, const std::string& b) {
    return header_error(R"({"a":)" + a + R"(,"b":)" + b + "}", eight).message();
  };
  CHECK_THAT(header_error(R"({"t":)" + entry("U8", "[0]", 4, 2) + "}", eight).message(),
             Catch::Contains("tensor 't': data_offsets [4, 2] has begin after end"));
  CHECK_THAT(header_error(R"({"t":)" + entry("U8", "[12]", 0, 12) + "}", eight).message(),
             Catch::Contains("data_offsets [0, 12] end past the data section (8 bytes)"));
  CHECK_THAT(header_error(R"({"t":)" + entry("U8", "[1]", 0, 18446744073709551615ull) + "}", eight)
                 .message(),
             Catch::Contains("end past the data section"));
  CHECK_THAT(header_error(R"({"t":)" + entry("F32", "[3]", 0, 8) + "}", eight).message(),
             Catch::Contains("data_offsets [0, 8] hold 8 bytes, but shape [3] of F32 needs 12"));
  CHECK_THAT(two(entry("U8", "[6]", 0, 6), entry("U8", "[4]", 4, 8)),
             Catch::Contains("tensor 'b': data_offsets [4, 8] overlap tensor 'a' [0, 6]"));
  CHECK_THAT(two(entry("U8", "[8]", 0, 8), entry("U8", "[8]", 0, 8)), Catch::Contains("overlap"));
  CHECK_THAT(two(entry("U8", "[3]", 0, 3), entry("U8", "[4]", 4, 8)),
             Catch::Contains("bytes [3, 4) of the data section belong to no tensor"));
  CHECK_THAT(two(entry("U8", "[3]", 2, 5), entry("U8", "[3]", 5, 8)),
             Catch::Contains("bytes [0, 2) of the data section belong to no tensor"));
  CHECK_THAT(two(entry("U8", "[3]", 0, 3), entry("U8", "[3]", 3, 6)),
             Catch::Contains("bytes [6, 8) of the data section belong to no tensor"));
  CHECK_THAT(header_error("{}", eight).message(),
             Catch::Contains("bytes [0, 8) of the data section belong to no tensor"));
}

TEST_CASE("safetensors: duplicate names and bad metadata") {
  Bytes two(2);
  CHECK_THAT(
      header_error(
          R"({"t":)" + entry("U8", "[1]", 0, 1) + R"(,"t":)" + entry("U8", "[1]", 1, 2) + "}", two)
          .message(),
      Catch::Contains("the key 't' twice (duplicate tensor name)"));
  CHECK_THAT(header_error(R"({"__metadata__":{"a":1}})").message(),
             Catch::Contains("__metadata__ value of 'a' is a number, expected a string"));
  CHECK_THAT(header_error(R"({"__metadata__":["a"]})").message(),
             Catch::Contains("__metadata__ is a array, expected an object of strings"));
  CHECK_THAT(header_error(R"({"__metadata__":{"a":"x","a":"y"}})").message(),
             Catch::Contains("the key 'a' twice"));
}

TEST_CASE("safetensors: huge names are cut short in errors") {
  std::string name(5000, 'n');
  std::string msg = header_error("{\"" + name + "\":5}").message();
  CHECK_THAT(msg, Catch::Contains("(5000 bytes)"));
  CHECK(msg.size() < 1000);
  // A JSON error quoting an unterminated megabyte string.
  std::string unterminated = header_error("{\"" + std::string(1 << 20, 'x')).message();
  CHECK_THAT(unterminated, Catch::Contains("not valid UTF-8 JSON"));
  CHECK(unterminated.size() < 1000);
}

TEST_CASE("safetensors: save refuses what the format cannot hold") {
  TempDir dir;
  fs::path p = dir / "x.safetensors";
  CHECK_THAT(error_of([&] {
               save_safetensors(p, {{"__metadata__", ones({1})}});
             }).message(),
             Catch::Contains("cannot be named '__metadata__'"));
  CHECK_THAT(error_of([&] {
               save_safetensors(p, {{"u", Tensor()}});
             }).message(),
             Catch::Contains("tensor 'u' is undefined"));
  CHECK_THAT(error_of([&] {
               save_safetensors(p, {{"bad\xff", ones({1})}});
             }).message(),
             Catch::Contains("tensor name 'bad\xff' is not valid UTF-8"));
  CHECK_THAT(error_of([&] {
               save_safetensors(p, {}, {{"k", "\xc3"}});
             }).message(),
             Catch::Contains("metadata value"));
  CHECK_THAT(error_of([&] { save_safetensors(dir / "no/such/dir/x.safetensors", {}); }).message(),
             Catch::Contains("cannot create a temporary file"));
  std::string huge(kSafetensorsMaxHeaderBytes + 1, 'm');
  CHECK_THAT(error_of([&] {
               save_safetensors(p, {}, {{"k", huge}});
             }).message(),
             Catch::Contains("more than the 100000000 that loaders accept"));
  CHECK(fs::is_empty(dir.path));  // nothing written by any of these
}

TEST_CASE("safetensors: a save that fails midway leaves the old file and no temporary") {
  TempDir dir;
  fs::path p = dir / "model.safetensors";
  save_safetensors(p, {{"old", arange(4, DType::F32)}});
  Bytes before = read_bytes(p);

  // Limit file size so the write fails with EFBIG partway through the data.
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  Error e = error_of([&] { save_safetensors(p, {{"big", zeros({1 << 20}, DType::F32)}}); });
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  CHECK(e.code() == ErrorCode::IoError);
  CHECK_THAT(e.message(), Catch::Contains("write failed") && Catch::Contains(p.string()));
  CHECK(read_bytes(p) == before);
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(dir.path)) files += f.is_regular_file();
  CHECK(files == 1);
}
