// Devices ("cpu", "vulkan:0") and the run-time registry of device types:
// cpu is slot 0; every backend name registered later gets the next free slot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plexus {

// A device type is a slot in the registry, assigned at run time.
using DeviceType = uint8_t;
inline constexpr DeviceType kCPU = 0;
// How many device types may be registered at once (cpu included).
inline constexpr int kMaxDeviceTypes = 64;

// One device: a device type and an index among that type's devices.
struct Device {
  DeviceType type = kCPU;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}
  // Parses "cpu", "cpu:0", "vulkan:1", "toydev" (index 0). The type must be registered.
  static Device parse(std::string_view text);
  bool is_cpu() const { return type == kCPU; }
  // "cpu" for cpu:0, otherwise "name:index".
  std::string str() const;
  constexpr bool operator==(const Device&) const = default;
};

// Registers a device type name and returns its slot; the same slot again if
// the name is already registered. Names are [a-z][a-z0-9_]*, at most 31 chars.
// Throws when all kMaxDeviceTypes slots are taken. Thread-safe.
DeviceType register_device_type(std::string_view name);
// The slot of a registered name, if any. Thread-safe.
std::optional<DeviceType> find_device_type(std::string_view name);
// The name of a registered slot ("cpu" for 0); "<unregistered:N>" otherwise.
std::string_view device_type_name(DeviceType type);
// All registered names, by slot.
std::vector<std::string> registered_device_types();

}  // namespace plexus
