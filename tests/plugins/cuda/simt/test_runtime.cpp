// The emulated runtime API: streams really run asynchronously and in order,
// events order work across streams, copies check their device side, and
// errors are reported as CUDA reports them.
#include <atomic>
#include <chrono>
#include <thread>

#include "simt_test.h"

using simt_test::DeviceBuffer;

namespace {

// Spins until *flag is set, then writes value: holds a stream back until the
// host lets go (host C++ in a kernel: these tests run only under the emulation).
__global__ void wait_then_write(int* flag, int* out, int value) {
  while (std::atomic_ref<int>(*flag).load() == 0) std::this_thread::yield();
  *out = value;
}

__global__ void add_one(int* p) {
  *p += 1;
}

void release(int* flag) {
  std::atomic_ref<int>(*flag).store(1);
}

}  // namespace

TEST_CASE("work on a stream runs after the launch returns, in queue order") {
  gpuStream_t s;
  REQUIRE(gpuStreamCreate(&s) == gpuSuccess);
  DeviceBuffer<int> flag(std::vector<int>{0}), out(std::vector<int>{0});
  PLEXUS_LAUNCH(wait_then_write, 1, 1, 0, s, flag.get(), out.get(), 41);
  PLEXUS_LAUNCH(add_one, 1, 1, 0, s, out.get());
  REQUIRE(gpuStreamQuery(s) == gpuErrorNotReady);  // held back by the flag
  release(flag.get());
  REQUIRE(gpuStreamSynchronize(s) == gpuSuccess);
  REQUIRE(gpuStreamQuery(s) == gpuSuccess);
  REQUIRE(out.read()[0] == 42);  // the second kernel ran after the first
  REQUIRE(gpuStreamDestroy(s) == gpuSuccess);
  REQUIRE(gpuStreamDestroy(s) == gpuErrorInvalidResourceHandle);
  gpuGetLastError();
}

TEST_CASE("an event makes another stream wait for the work recorded before it") {
  gpuStream_t a, b;
  gpuEvent_t e;
  REQUIRE(gpuStreamCreate(&a) == gpuSuccess);
  REQUIRE(gpuStreamCreate(&b) == gpuSuccess);
  REQUIRE(gpuEventCreate(&e) == gpuSuccess);
  DeviceBuffer<int> flag(std::vector<int>{0}), out(std::vector<int>{0});
  PLEXUS_LAUNCH(wait_then_write, 1, 1, 0, a, flag.get(), out.get(), 10);
  REQUIRE(gpuEventRecord(e, a) == gpuSuccess);
  REQUIRE(gpuStreamWaitEvent(b, e, 0) == gpuSuccess);
  PLEXUS_LAUNCH(add_one, 1, 1, 0, b, out.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(gpuEventQuery(e) == gpuErrorNotReady);
  REQUIRE(gpuStreamQuery(b) == gpuErrorNotReady);  // b waits on a's event
  release(flag.get());
  REQUIRE(gpuStreamSynchronize(b) == gpuSuccess);
  REQUIRE(gpuEventQuery(e) == gpuSuccess);
  REQUIRE(out.read()[0] == 11);
  REQUIRE(gpuEventDestroy(e) == gpuSuccess);
  REQUIRE(gpuStreamDestroy(a) == gpuSuccess);
  REQUIRE(gpuStreamDestroy(b) == gpuSuccess);
}

TEST_CASE("an asynchronous copy reads its host source when it runs, not when queued") {
  gpuStream_t s;
  REQUIRE(gpuStreamCreate(&s) == gpuSuccess);
  DeviceBuffer<int> flag(std::vector<int>{0}), sink(1), dst(1);
  int host = 1;
  PLEXUS_LAUNCH(wait_then_write, 1, 1, 0, s, flag.get(), sink.get(), 0);
  REQUIRE(gpuMemcpyAsync(dst.get(), &host, sizeof host, gpuMemcpyHostToDevice, s) == gpuSuccess);
  host = 2;  // a runtime that frees or reuses src before the copy ran gets this bug on a GPU too
  release(flag.get());
  REQUIRE(gpuStreamSynchronize(s) == gpuSuccess);
  REQUIRE(dst.read()[0] == 2);
  REQUIRE(gpuStreamDestroy(s) == gpuSuccess);
}

TEST_CASE("copies and memsets refuse a device side outside gpuMalloc'd memory") {
  DeviceBuffer<float> d(4);
  float host[8] = {};
  REQUIRE(gpuMemcpy(host, d.get(), 4 * sizeof(float), gpuMemcpyHostToDevice) ==
          gpuErrorInvalidValue);
  REQUIRE(gpuMemcpy(d.get(), host, 8 * sizeof(float), gpuMemcpyHostToDevice) ==
          gpuErrorInvalidValue);
  REQUIRE(gpuMemcpy(host, d.get(), 4 * sizeof(float), gpuMemcpyDeviceToHost) == gpuSuccess);
  REQUIRE(gpuMemset(host, 0, sizeof host) == gpuErrorInvalidValue);
  REQUIRE(gpuGetLastError() == gpuErrorInvalidValue);
  REQUIRE(gpuGetLastError() == gpuSuccess);  // reading the last error clears it
  REQUIRE(gpuFree(host) != gpuSuccess);
  gpuGetLastError();
}

TEST_CASE("one device, with properties; none when PLEXUS_SIMT_DEVICE_COUNT=0") {
  int count = -1;
  REQUIRE(gpuGetDeviceCount(&count) == gpuSuccess);
  REQUIRE(count == 1);
  gpuDeviceProp prop;
  REQUIRE(gpuGetDeviceProperties(&prop, 0) == gpuSuccess);
  REQUIRE(prop.warpSize == 32);
  REQUIRE(prop.maxThreadsPerBlock == 1024);
  REQUIRE(gpuGetDeviceProperties(&prop, 1) == gpuErrorInvalidDevice);
  setenv("PLEXUS_SIMT_DEVICE_COUNT", "0", 1);
  REQUIRE(gpuGetDeviceCount(&count) == gpuErrorNoDevice);
  REQUIRE(count == 0);
  REQUIRE_THAT(gpuGetErrorString(gpuErrorNoDevice), Catch::Contains("PLEXUS_SIMT_DEVICE_COUNT"));
  unsetenv("PLEXUS_SIMT_DEVICE_COUNT");
  gpuGetLastError();
}
