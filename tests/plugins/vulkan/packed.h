// Helpers of the vulkan plugin's packed-path tests: loading the plugin, test
// values on the device, and comparing results with arithmetic in double.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "plexus/device.h"
#include "plexus/factories.h"
#include "plexus/plugins.h"
#include "plexus/tensor.h"

namespace vulkan_test {

// Loads only the build tree's vulkan plugin.
inline void load_vulkan_plugin() {
  plexus::PluginLoadOptions o;
  o.search_paths = {PLEXUS_VULKAN_PLUGIN_DIR};
  o.use_environment = false;
  o.use_default_paths = false;
  o.allow = {"vulkan"};
  for (const plexus::PluginRecord& r : plexus::load_plugins(o))
    if (r.name == "vulkan") REQUIRE(r.state == plexus::PluginRecord::State::Loaded);
}

// n values starting `offset` elements into a storage of offset + n + 3, on dev.
inline plexus::Tensor values(int64_t n, int64_t offset, float scale, plexus::Device dev) {
  std::vector<float> host(size_t(offset + n + 3));
  for (size_t i = 0; i < host.size(); ++i) host[i] = scale * float(int64_t(i % 97) - 40);
  plexus::Tensor all = plexus::from_blob(host.data(), {int64_t(host.size())},
                                         plexus::TensorOptions(plexus::DType::F32))
                           .to(dev);
  return all.narrow(0, offset, n);
}

// x[r][i] of a rows x len matrix: varied, with a few large values.
inline std::vector<float> matrix(int64_t rows, int64_t len) {
  std::vector<float> v(size_t(rows * len));
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(int64_t((k * 37) % 101) - 50) / 8.0f;
  return v;
}

// host's values as a float32 tensor of these sizes on dev.
inline plexus::Tensor on(std::vector<float>& host, plexus::IntArrayRef sizes, plexus::Device dev) {
  return plexus::from_blob(host.data(), sizes, plexus::TensorOptions(plexus::DType::F32)).to(dev);
}

// Largest |got - want| / (1 + |want|).
inline double worst(const std::vector<float>& got, const std::vector<double>& want) {
  double w = 0;
  for (size_t i = 0; i < want.size(); ++i)
    w = std::max(w, std::abs(double(got[i]) - want[i]) / (1 + std::abs(want[i])));
  return w;
}

}  // namespace vulkan_test
