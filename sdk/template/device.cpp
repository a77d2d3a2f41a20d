// toydev devices: what each reports to the host.
#include "backend.h"

#include <cstring>
#include <string>

namespace toydev {

void ToyBackend::properties(int32_t device, plexus_device_properties& out) {
  std::string name = "toydev simulated device " + std::to_string(device);
  sdk::copy_string(out.name, name.c_str());
  sdk::copy_string(out.vendor, "plexus SDK template");
  out.kind = PLEXUS_DEVICE_KIND_EMULATED;
  out.capabilities = 0;  // synchronous; device pointers are handles, not host pointers
  out.total_memory = arena(device).capacity();
  out.dtypes = sdk::kAllDTypes;
}

}  // namespace toydev
