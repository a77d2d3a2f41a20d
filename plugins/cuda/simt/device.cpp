// The one emulated device, its properties, and the runtime's errors.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace simt::detail {
namespace {

thread_local simtError_t t_last_error = simtSuccess;
std::atomic<bool> g_failed{false};
std::mutex g_failure_mutex;
std::string g_failure;  // set once per failure; read through launch_failure_message

bool no_device() {
  const char* env = std::getenv("PLEXUS_SIMT_DEVICE_COUNT");
  return env && std::strcmp(env, "0") == 0;
}

}  // namespace

simtError_t fail(simtError_t e) {
  if (e != simtSuccess) t_last_error = e;
  return e;
}

bool has_launch_failure() {
  return g_failed.load(std::memory_order_acquire);
}

void set_launch_failure(const std::string& message) {
  std::lock_guard lock(g_failure_mutex);
  if (g_failed) return;
  g_failure = "launch failure: " + message;
  g_failed.store(true, std::memory_order_release);
}

const char* launch_failure_message() {
  return has_launch_failure() ? g_failure.c_str() : "unspecified launch failure";
}

}  // namespace simt::detail

void simt::clear_launch_failure() {
  simtDeviceSynchronize();
  std::lock_guard lock(detail::g_failure_mutex);
  detail::g_failed = false;  // the message stays allocated: pointers to it stay valid
}

using namespace simt::detail;

simtError_t simtGetDeviceCount(int* count) {
  if (!count) return fail(simtErrorInvalidValue);
  *count = no_device() ? 0 : 1;
  return *count ? simtSuccess : fail(simtErrorNoDevice);
}

simtError_t simtGetDeviceProperties(simtDeviceProp* prop, int device) {
  if (!prop) return fail(simtErrorInvalidValue);
  if (device != 0 || no_device()) return fail(simtErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  int warp = simt::launch_warp_size();
  std::snprintf(prop->name, sizeof prop->name, "plexus SIMT emulation (host cpu, warp %d)", warp);
  prop->totalGlobalMem = device_memory();
  prop->sharedMemPerBlock = 48 * 1024;
  prop->warpSize = warp;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->multiProcessorCount = int(std::max(1u, std::thread::hardware_concurrency()));
  return simtSuccess;
}

simtError_t simtSetDevice(int device) {
  return device == 0 && !no_device() ? simtSuccess : fail(simtErrorInvalidDevice);
}

simtError_t simtGetDevice(int* device) {
  if (!device) return fail(simtErrorInvalidValue);
  *device = 0;
  return simtSuccess;
}

simtError_t simtDriverGetVersion(int* version) {
  if (!version) return fail(simtErrorInvalidValue);
  *version = 1;  // the emulation's own version, not a CUDA one
  return simtSuccess;
}

simtError_t simtRuntimeGetVersion(int* version) {
  return simtDriverGetVersion(version);
}

simtError_t simtMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return fail(simtErrorInvalidValue);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  *total_bytes = device_memory();
  *free_bytes = std::min(size_t(sysconf(_SC_AVPHYS_PAGES)) * page,
                         *total_bytes - std::min(*total_bytes, device_memory_used()));
  return simtSuccess;
}

simtError_t simtGetLastError() {
  simtError_t e = t_last_error;
  t_last_error = simtSuccess;
  return e;
}

simtError_t simtPeekAtLastError() {
  return t_last_error;
}

const char* simtGetErrorName(simtError_t error) {
  switch (error) {
    case simtSuccess:
      return "simtSuccess";
    case simtErrorInvalidValue:
      return "simtErrorInvalidValue";
    case simtErrorMemoryAllocation:
      return "simtErrorMemoryAllocation";
    case simtErrorInvalidConfiguration:
      return "simtErrorInvalidConfiguration";
    case simtErrorInvalidDevicePointer:
      return "simtErrorInvalidDevicePointer";
    case simtErrorInvalidMemcpyDirection:
      return "simtErrorInvalidMemcpyDirection";
    case simtErrorInvalidResourceHandle:
      return "simtErrorInvalidResourceHandle";
    case simtErrorNotReady:
      return "simtErrorNotReady";
    case simtErrorNoDevice:
      return "simtErrorNoDevice";
    case simtErrorInvalidDevice:
      return "simtErrorInvalidDevice";
    case simtErrorLaunchFailure:
      return "simtErrorLaunchFailure";
  }
  return "simtErrorUnknown";
}

// The launch failure's string says which kernel, block and barrier failed.
const char* simtGetErrorString(simtError_t error) {
  switch (error) {
    case simtSuccess:
      return "no error";
    case simtErrorInvalidValue:
      return "invalid argument";
    case simtErrorMemoryAllocation:
      return "out of memory";
    case simtErrorInvalidConfiguration:
      return "invalid configuration argument";
    case simtErrorInvalidDevicePointer:
      return "invalid device pointer";
    case simtErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case simtErrorInvalidResourceHandle:
      return "invalid resource handle";
    case simtErrorNotReady:
      return "device not ready";
    case simtErrorNoDevice:
      return "no SIMT device (PLEXUS_SIMT_DEVICE_COUNT=0)";
    case simtErrorInvalidDevice:
      return "invalid device ordinal";
    case simtErrorLaunchFailure:
      return launch_failure_message();
  }
  return "unknown error";
}
