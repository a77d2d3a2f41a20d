// Helpers of the emulation's tests: device buffers filled from and read back
// to host vectors, and a checked synchronize that names the launch failure.
#pragma once

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "gpu.h"

namespace simt_test {

// A device buffer of n T's, freed on scope exit.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    REQUIRE(gpuMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)) == gpuSuccess);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    REQUIRE(gpuMemcpy(p_, host.data(), n_ * sizeof(T), gpuMemcpyHostToDevice) == gpuSuccess);
  }
  ~DeviceBuffer() { gpuFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::vector<T> read() const {
    std::vector<T> host(n_);
    REQUIRE(gpuMemcpy(host.data(), p_, n_ * sizeof(T), gpuMemcpyDeviceToHost) == gpuSuccess);
    return host;
  }

 private:
  size_t n_;
  T* p_ = nullptr;
};

// Synchronizes the device and returns "" or the launch failure's message,
// clearing it so the next test starts clean.
inline std::string sync_failure() {
  gpuError_t e = gpuDeviceSynchronize();
  if (e == gpuSuccess) return "";
  std::string message = gpuGetErrorString(e);
  simt::clear_launch_failure();
  gpuGetLastError();
  return message;
}

// Runs f at warp size 32 and at 64 (as in a CUDA and an AMD-shaped build).
template <typename F>
void at_both_warp_sizes(F f) {
  for (int warp : {32, 64}) {
    DYNAMIC_SECTION("warp size " << warp) {
      simt::set_launch_warp_size(warp);
      f(warp);
      simt::set_launch_warp_size(32);
    }
  }
}

}  // namespace simt_test
