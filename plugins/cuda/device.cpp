// Finding the devices (Devices), their properties, and the backend's
// device-wide functions (properties, synchronize).
#include "device.h"

#include <string>

#include "backend.h"
#include "errors.h"
#include "plexus/plugin.hpp"

namespace plexus::gpu {
namespace {

#if defined(PLEXUS_GPU_CUDA)
constexpr const char* kVendor = "NVIDIA";
constexpr const char* kRuntime = "CUDA runtime";
constexpr int32_t kKind = PLEXUS_DEVICE_KIND_GPU;
#elif defined(PLEXUS_GPU_HIP)
constexpr const char* kVendor = "AMD";
constexpr const char* kRuntime = "HIP runtime";
constexpr int32_t kKind = PLEXUS_DEVICE_KIND_GPU;
#else
constexpr const char* kVendor = "plexus SIMT emulation";
constexpr const char* kRuntime = "SIMT emulation";
constexpr int32_t kKind = PLEXUS_DEVICE_KIND_EMULATED;
#endif

// "13.0" from CUDA's 13000, "5.2.21153" from HIP's 50221153; the
// emulation's number as it is.
std::string version_string(int v) {
#if defined(PLEXUS_GPU_CUDA)
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
#elif defined(PLEXUS_GPU_HIP)
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
         std::to_string(v % 100000);
#else
  return std::to_string(v);
#endif
}

// The runtime and driver versions, for the reason a user reads.
std::string versions() {
  int runtime = 0, driver = 0;
  std::string s = kRuntime;
  if (gpuRuntimeGetVersion(&runtime) == gpuSuccess) s.append(" ").append(version_string(runtime));
  if (gpuDriverGetVersion(&driver) == gpuSuccess && driver > 0)
    s.append(", driver ").append(version_string(driver));
  else
    s.append(", no driver");
  (void)gpuGetLastError();
  return s;
}

}  // namespace

Devices::Devices() {
  int n = 0;
  gpuError_t e = gpuGetDeviceCount(&n);
  if (e != gpuSuccess || n <= 0) {
    // The runtime reports "no device" as an error or as a count of 0.
    std::string why = e != gpuSuccess ? describe(e) : std::string("0 devices");
    reason_ = PLEXUS_GPU_PREFIX "GetDeviceCount: ";
    reason_.append(why).append("; ").append(versions());
    (void)gpuGetLastError();
    return;
  }
  for (int d = 0; d < n; ++d) {
    gpuDeviceProp p{};
    e = gpuGetDeviceProperties(&p, d);
    if (e != gpuSuccess) {  // one broken device hides it and those after it
      reason_ = PLEXUS_GPU_PREFIX "GetDeviceProperties(";
      reason_.append(std::to_string(d)).append("): ").append(describe(e));
      (void)gpuGetLastError();
      break;
    }
    props_.push_back(p);
  }
}

void Devices::check_index(int32_t device, const char* what) const {
  if (device < 0 || device >= count())
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "{}: device index {} out of range (" PLEXUS_GPU_DEVICE_TYPE " has {} devices)", what,
              device, count());
}

void Devices::properties(int32_t device, plexus_device_properties& out) const {
  check_index(device, "get_properties");
  const gpuDeviceProp& p = props_[static_cast<size_t>(device)];
  sdk::copy_string(out.name, p.name);
  sdk::copy_string(out.vendor, kVendor);
  out.kind = kKind;
  out.capabilities = PLEXUS_CAP_ASYNC;
  out.total_memory = p.totalGlobalMem;
  out.dtypes = (1u << PLEXUS_NUM_DTYPES) - 1;
}

std::string device_name(int32_t device) {
  return std::string(PLEXUS_GPU_DEVICE_TYPE ":") + std::to_string(device);
}

void use_device(int32_t device) {
  // Asks rather than caches: an application or library may change the
  // thread's device between our calls.
  int current = -1;
  if (gpuGetDevice(&current) == gpuSuccess && current == device) return;
  check_gpu(gpuSetDevice(device), device, PLEXUS_GPU_PREFIX "SetDevice");
}

void GpuBackend::properties(int32_t device, plexus_device_properties& out) {
  devices_.properties(device, out);
}

void GpuBackend::synchronize(int32_t device) {
  devices_.check_index(device, "synchronize");
  use_device(device);
  check_gpu(gpuDeviceSynchronize(), device, PLEXUS_GPU_PREFIX "DeviceSynchronize");
}

int Devices::multiprocessors(int32_t device) const {
  check_index(device, "multiprocessors");
  return props_[static_cast<size_t>(device)].multiProcessorCount;
}

}  // namespace plexus::gpu
