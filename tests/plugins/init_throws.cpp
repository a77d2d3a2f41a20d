// A plugin written with the C++ SDK (plexus/plugin.hpp) whose init registers
// a backend, then throws. sdk::guard turns the exception into a status and
// hands its message to the host, which must report it and undo the backend.
#include <plexus/plugin.hpp>
#include <stdexcept>

namespace sdk = plexus::sdk;

namespace {

// A device type without devices: the host never calls the device functions.
class NoDevices : public sdk::Backend<NoDevices> {
 public:
  int32_t device_count() { return 0; }
  void properties(int32_t, plexus_device_properties&) { none(); }
  void* allocate(int32_t, size_t) { none(); }
  void deallocate(int32_t, void*, size_t) {}
  void memset(int32_t, void*, size_t, int32_t, size_t, void*) { none(); }
  void copy_host_to_device(int32_t, void*, size_t, const void*, size_t, void*) { none(); }
  void copy_device_to_host(int32_t, void*, const void*, size_t, size_t, void*) { none(); }
  void copy_device_to_device(int32_t, void*, size_t, const void*, size_t, size_t, void*) { none(); }
  void synchronize(int32_t) {}

 private:
  [[noreturn]] static void none() { sdk::fail(PLEXUS_ERROR_DEVICE, "no fixture devices"); }
};

NoDevices g_backend;

plexus_status init(const plexus_host_api* host, void**) {
  return sdk::guard(host, [&] {
    g_backend.register_backend(host, "fixture_broken");
    throw std::runtime_error("fixture firmware 0.3 is too old; 2.0 or newer is needed");
  });
}

}  // namespace

extern "C" PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t, uint32_t) {
  static const plexus_plugin_info info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_init_throws",
                                          "0.1.0",
                                          &init,
                                          nullptr};
  return &info;
}
