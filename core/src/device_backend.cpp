#include "plexus/device_backend.h"

#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <mutex>
#include <thread>
#include <vector>

#include "plexus/allocator.h"
#include "plexus/error.h"

namespace plexus {
namespace {

// Host memory: the cpu device type's backend, always installed.
class HostBackend final : public DeviceBackend {
 public:
  int device_count() override { return 1; }
  DeviceProperties properties(int) override {
    return {cpu_model_name(), "", "cpu",
            static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE))};
  }
  void* allocate(int, size_t n) override { return host_allocate(n); }
  void deallocate(int, void* p, size_t) noexcept override { host_free(p); }
  void copy_from_host(int, void* d, size_t doff, const void* s, size_t n) override {
    std::memcpy(static_cast<char*>(d) + doff, s, n);
  }
  void copy_to_host(int, void* d, const void* s, size_t soff, size_t n) override {
    std::memcpy(d, static_cast<const char*>(s) + soff, n);
  }
  void copy_on_device(int, void* d, size_t doff, const void* s, size_t soff, size_t n) override {
    std::memcpy(static_cast<char*>(d) + doff, static_cast<const char*>(s) + soff, n);
  }
  void synchronize(int) override {}
  void memset_on(int, void* p, size_t off, int value, size_t n, void*) override {
    std::memset(static_cast<char*>(p) + off, value, n);
  }

 private:
  // "Intel(R) Xeon(R) ..." from /proc/cpuinfo; "host cpu" where that is unreadable.
  static std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("model name", 0) == 0) {
        auto colon = line.find(':');
        if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
      }
    return "host cpu";
  }
};

struct Registry {
  std::mutex mutex;
  std::array<std::shared_ptr<DeviceBackend>, kMaxDeviceTypes> owned;
  std::array<std::atomic<DeviceBackend*>, kMaxDeviceTypes> fast{};

  Registry() {
    owned[kCPU] = std::make_shared<HostBackend>();
    fast[kCPU].store(owned[kCPU].get());
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

// ---- DeviceBackend's defaults: no streams, synchronous work ---------------------

void* DeviceBackend::create_stream(int) {
  fail(ErrorCode::Unsupported, "this device type has no streams");
}
void DeviceBackend::destroy_stream(int, void*) noexcept {}
void DeviceBackend::synchronize_stream(int index, void*) { synchronize(index); }
void* DeviceBackend::create_event(int) {
  fail(ErrorCode::Unsupported, "this device type has no events");
}
void DeviceBackend::destroy_event(int, void*) noexcept {}
void DeviceBackend::record_event(int, void*, void*) {
  fail(ErrorCode::Unsupported, "this device type has no events");
}
void DeviceBackend::wait_event(int, void*, void*) {
  fail(ErrorCode::Unsupported, "this device type has no events");
}
void DeviceBackend::synchronize_event(int, void*) {
  fail(ErrorCode::Unsupported, "this device type has no events");
}
void DeviceBackend::copy_from_host_on(int index, void* dst, size_t dst_offset, const void* src,
                                      size_t n, void*) {
  copy_from_host(index, dst, dst_offset, src, n);
}
void DeviceBackend::copy_to_host_on(int index, void* dst, const void* src, size_t src_offset,
                                    size_t n, void*) {
  copy_to_host(index, dst, src, src_offset, n);
}
void DeviceBackend::copy_on_device_on(int index, void* dst, size_t dst_offset, const void* src,
                                      size_t src_offset, size_t n, void*) {
  copy_on_device(index, dst, dst_offset, src, src_offset, n);
}
void DeviceBackend::memset_on(int index, void* ptr, size_t offset, int value, size_t n, void*) {
  std::vector<unsigned char> bytes(n, static_cast<unsigned char>(value));
  if (n) copy_from_host(index, ptr, offset, bytes.data(), n);
}

void set_device_backend(DeviceType type, std::shared_ptr<DeviceBackend> backend) {
  PLEXUS_CHECK(type < kMaxDeviceTypes, ErrorCode::InvalidArgument,
               "device type slot {} is out of range (0..{})", type, kMaxDeviceTypes - 1);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.fast[type].store(backend.get(), std::memory_order_release);
  r.owned[type] = std::move(backend);
}

DeviceBackend* find_device_backend(DeviceType type) {
  if (type >= kMaxDeviceTypes) return nullptr;
  return registry().fast[type].load(std::memory_order_acquire);
}

DeviceBackend& device_backend(DeviceType type) {
  DeviceBackend* b = find_device_backend(type);
  PLEXUS_CHECK(b != nullptr, ErrorCode::NotFound,
               "device type '{}' has no backend loaded (no plugin provides it)",
               device_type_name(type));
  return *b;
}

}  // namespace plexus
