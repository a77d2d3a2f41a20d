// Streams reach plugins: kernels and copies get this thread's current stream
// (plexus/stream.h), and the caching allocator keeps blocks apart by stream.
// The fixture plugin (fixtures/streams.c) notes the stream handle each call
// got, so the checks are exact. Real asynchronous streams: tests/plugins
// (simt, vulkan, cuda).
#ifdef PLEXUS_TEST_PLUGIN_DIR
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <string>
#include <thread>

#include "plexus/allocator.h"
#include "plexus/device_backend.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/plugins.h"
#include "plexus/stream.h"

using namespace plexus;

namespace {

const std::string kLibrary =
    std::string(PLEXUS_TEST_PLUGIN_DIR) + "/fixture_streams/libplexus-fixture_streams.so";

enum Seen { kKernel = 0, kCopy = 1, kKernelCalls = 2, kLiveStreams = 3, kEvents = 4 };

// Loads the fixture (once per process is enough: the tests leave it loaded).
Device fixture_device() {
  if (!find_device_type("fixture_streams")) {
    PluginLoadOptions o;
    o.search_paths = {std::string(PLEXUS_TEST_PLUGIN_DIR) + "/fixture_streams"};
    o.use_environment = false;
    o.use_default_paths = false;
    o.allow = {"fixture_streams"};
    for (const PluginRecord& r : load_plugins(o)) INFO(r.name << ": " << r.reason);
  }
  auto type = find_device_type("fixture_streams");
  REQUIRE(type);
  return Device(*type, 0);
}

// What the fixture saw last (its exported fixture_streams_seen).
void* seen(Seen what) {
  void* lib = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib != nullptr);
  auto fn = reinterpret_cast<void* (*)(int)>(dlsym(lib, "fixture_streams_seen"));
  dlclose(lib);  // the loader still holds it
  REQUIRE(fn != nullptr);
  return fn(int(what));
}
int64_t count(Seen what) { return int64_t(reinterpret_cast<intptr_t>(seen(what))); }

void* block_of(const Tensor& t) { return t.storage()->data(); }

}  // namespace

TEST_CASE("kernels and copies run on this thread's current stream", "[streams]") {
  Device d = fixture_device();
  Tensor x = full({8}, -1.0).to(d);
  CHECK(seen(kCopy) == nullptr);
  Stream s1 = Stream::create(d), s2 = Stream::create(d);
  REQUIRE(s1.handle() != nullptr);
  REQUIRE(s1.handle() != s2.handle());
  CHECK(Stream::current(d).is_default());
  {
    StreamGuard g(s1);
    CHECK(Stream::current(d) == s1);
    Tensor y = relu(x);
    CHECK(seen(kKernel) == s1.handle());
    Tensor h = y.to(Device());
    CHECK(h.data<float>()[0] == 0.0f);
    CHECK(h.data<float>()[7] == 0.0f);
    CHECK(seen(kCopy) == s1.handle());
    {
      StreamGuard inner(s2);
      relu(x);
      CHECK(seen(kKernel) == s2.handle());
      x.copy_(full({8}, 2.0));
      CHECK(seen(kCopy) == s2.handle());
    }
    relu(x);
    CHECK(seen(kKernel) == s1.handle());
    // Another thread has its own current streams: the default here.
    std::thread([&] {
      relu(x);
      CHECK(seen(kKernel) == nullptr);
    }).join();
  }
  relu(x);
  CHECK(seen(kKernel) == nullptr);
  CHECK(Stream::current(d).is_default());
}

TEST_CASE("a stream is destroyed with its last copy", "[streams]") {
  Device d = fixture_device();
  int64_t before = count(kLiveStreams);
  {
    Stream s = Stream::create(d);
    Stream copy = s;
    CHECK(count(kLiveStreams) == before + 1);
    s = Stream();
    CHECK(count(kLiveStreams) == before + 1);
  }
  CHECK(count(kLiveStreams) == before);
}

TEST_CASE("the allocator reuses a block only on the stream it was allocated on", "[streams]") {
  Device d = fixture_device();
  allocator_for(d).empty_cache();
  Stream s1 = Stream::create(d), s2 = Stream::create(d);
  void* first = nullptr;
  {
    StreamGuard g(s1);
    first = block_of(empty({1000}, {DType::F32, d}));
  }
  {
    StreamGuard g(s2);
    Tensor t = empty({1000}, {DType::F32, d});
    CHECK(block_of(t) != first);  // s2 could write it while s1's work still reads it
  }
  {
    StreamGuard g(s1);
    CHECK(block_of(empty({1000}, {DType::F32, d})) == first);  // same stream: in order
  }
}

TEST_CASE("default-stream blocks are reused by the thread that allocated them", "[streams]") {
  // A NULL stream may be a different stream on each thread (per_thread).
  Device d = fixture_device();
  allocator_for(d).empty_cache();
  void* mine = block_of(empty({777}, {DType::F32, d}));
  void* theirs = nullptr;
  std::thread([&] { theirs = block_of(empty({777}, {DType::F32, d})); }).join();
  CHECK(theirs != mine);
  CHECK(block_of(empty({777}, {DType::F32, d})) == mine);
}

TEST_CASE("record_stream makes a freed block wait for the other stream", "[streams]") {
  Device d = fixture_device();
  allocator_for(d).empty_cache();
  Stream s1 = Stream::create(d), s2 = Stream::create(d);
  StreamGuard g(s1);
  Tensor t = empty({500}, {DType::F32, d});
  void* block = block_of(t);
  t.record_stream(s2);
  t.record_stream(s2);  // once is enough
  t.record_stream(s1);  // its own stream: nothing to wait for
  int64_t events = count(kEvents);
  t = Tensor();
  CHECK(count(kEvents) == events + 1);  // one event, on s2, at the free
  CHECK(block_of(empty({500}, {DType::F32, d})) == block);  // reused after waiting for it
}

TEST_CASE("stream errors name what was wrong", "[streams]") {
  Device d = fixture_device();
  try {
    Stream::create(Device());
    FAIL("a cpu stream was made");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK_THAT(e.what(), Catch::Contains("the cpu backend has no streams"));
  }
  Stream s = Stream::create(d);
  try {
    Stream::default_for(Device()).wait(s);
    FAIL("a cpu stream waited for a fixture stream");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("streams of one device only"));
  }
  Tensor host = ones({3});
  host.record_stream(Stream());  // cpu: nothing to track
  try {
    empty({3}, {DType::F32, d}).record_stream(Stream::default_for(Device()));
    FAIL("record_stream accepted a stream of another device");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("record_stream: the memory is on fixture_streams"));
  }
}
#endif  // PLEXUS_TEST_PLUGIN_DIR
