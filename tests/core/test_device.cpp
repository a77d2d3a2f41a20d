// Devices and the run-time registry of device types.
#include <catch2/catch.hpp>

#include "plexus/device.h"
#include "plexus/error.h"

using namespace plexus;

TEST_CASE("cpu is slot 0; new names get new slots, the same name the same slot") {
  CHECK(find_device_type("cpu") == kCPU);
  DeviceType a = register_device_type("devtest_a");
  DeviceType b = register_device_type("devtest_b");
  CHECK(a != kCPU);
  CHECK(b == a + 1);
  CHECK(register_device_type("devtest_a") == a);
  CHECK(device_type_name(b) == "devtest_b");
}

TEST_CASE("devices parse and print") {
  register_device_type("devtest_a");
  CHECK(Device::parse("cpu") == Device());
  CHECK(Device::parse("cpu").str() == "cpu");
  Device d = Device::parse("devtest_a:3");
  CHECK(d.index == 3);
  CHECK(d.str() == "devtest_a:3");
  CHECK(Device::parse("devtest_a").index == 0);
  REQUIRE_THROWS_WITH(Device::parse("nosuch:0"), Catch::Contains("unknown device type 'nosuch'") &&
                                                      Catch::Contains("registered: cpu"));
  REQUIRE_THROWS_WITH(Device::parse("cpu:-1"), Catch::Contains("non-negative index"));
  REQUIRE_THROWS_WITH(Device::parse("cpu:x"), Catch::Contains("non-negative index"));
}

TEST_CASE("at least 32 device types can be registered; bad names are refused") {
  for (int i = 0; i < 32; ++i) register_device_type("many_" + std::to_string(i));
  CHECK(registered_device_types().size() >= 33);
  REQUIRE_THROWS_WITH(register_device_type("Bad-Name"), Catch::Contains("not valid"));
  REQUIRE_THROWS_WITH(register_device_type(""), Catch::Contains("not valid"));
}
