#include "plexus/device.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <charconv>
#include <mutex>

#include "plexus/error.h"

namespace plexus {
namespace {

// Names live in fixed slots so device_type_name() can read without a lock:
// a slot's name is written once, before `count` is published.
struct Registry {
  std::mutex mutex;
  std::array<std::string, kMaxDeviceTypes> names;
  std::atomic<int> count{0};

  Registry() {
    names[kCPU] = "cpu";
    count.store(1, std::memory_order_release);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 31 || !(n[0] >= 'a' && n[0] <= 'z')) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

DeviceType register_device_type(std::string_view name) {
  PLEXUS_CHECK(
      valid_name(name), ErrorCode::InvalidArgument,
      "device type name '{}' is not valid: expected [a-z][a-z0-9_]*, at most 31 characters", name);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  int n = r.count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i)
    if (r.names[i] == name) return static_cast<DeviceType>(i);
  PLEXUS_CHECK(n < kMaxDeviceTypes, ErrorCode::Unsupported,
               "cannot register device type '{}': all {} device type slots are taken", name,
               kMaxDeviceTypes);
  r.names[n] = std::string(name);
  r.count.store(n + 1, std::memory_order_release);
  return static_cast<DeviceType>(n);
}

std::optional<DeviceType> find_device_type(std::string_view name) {
  Registry& r = registry();
  int n = r.count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (r.names[i] == name) return static_cast<DeviceType>(i);
  return std::nullopt;
}

std::string_view device_type_name(DeviceType type) {
  Registry& r = registry();
  if (type < r.count.load(std::memory_order_acquire)) return r.names[type];
  return "<unregistered>";
}

std::vector<std::string> registered_device_types() {
  Registry& r = registry();
  int n = r.count.load(std::memory_order_acquire);
  return {r.names.begin(), r.names.begin() + n};
}

Device Device::parse(std::string_view text) {
  auto colon = text.find(':');
  std::string_view name = text.substr(0, colon);
  int index = 0;
  if (colon != std::string_view::npos) {
    std::string_view num = text.substr(colon + 1);
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), index);
    PLEXUS_CHECK(ec == std::errc() && p == num.data() + num.size() && !num.empty() && index >= 0 &&
                     index <= INT16_MAX,
                 ErrorCode::InvalidArgument,
                 "device '{}': expected 'type' or 'type:index' with a non-negative index", text);
  }
  auto type = find_device_type(name);
  if (!type) {
    std::string known;
    for (auto& n : registered_device_types()) known += (known.empty() ? "" : ", ") + n;
    fail(ErrorCode::NotFound, "device '{}': unknown device type '{}' (registered: {})", text, name,
         known);
  }
  return Device(*type, static_cast<int16_t>(index));
}

std::string Device::str() const {
  if (type == kCPU && index == 0) return "cpu";
  return fmt::format("{}:{}", device_type_name(type), index);
}

}  // namespace plexus
