// The cpu's one device, the host: its count and what it reports to plexus.
#include <cstdio>
#include <thread>

#include "backend.h"

namespace plexus::cpu {

int32_t CpuBackend::device_count() {
  return 1;
}

void CpuBackend::properties(int32_t, plexus_device_properties& out) {
  std::snprintf(out.name, sizeof(out.name), "host cpu (%u threads)",
                std::thread::hardware_concurrency());
  std::snprintf(out.vendor, sizeof(out.vendor), "plexus cpu plugin (oneDNN)");
  out.kind = PLEXUS_DEVICE_KIND_CPU;
  out.capabilities = PLEXUS_CAP_HOST_ADDRESSABLE;
  out.dtypes = (1u << PLEXUS_NUM_DTYPES) - 1;
}

}  // namespace plexus::cpu
