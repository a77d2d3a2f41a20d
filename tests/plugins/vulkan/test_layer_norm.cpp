// The vulkan plugin's packed layer_norm (plugins/vulkan/layer_norm.cpp through
// rows.cpp): rows of a multiple of 4 elements, at least 64 of them, take the
// packed form of shaders/layer_norm.comp (one invocation per row), checked
// against double arithmetic with a weight and a bias.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "packed.h"
#include "plexus/ops_nn.h"

using namespace vulkan_test;

TEST_CASE("packed layer_norm matches double arithmetic") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  for (auto [rows, len] : {std::pair<int64_t, int64_t>{64, 4}, {80, 12}, {130, 1024}}) {
    CAPTURE(rows, len);
    std::vector<float> hx = matrix(rows, len), hw(static_cast<size_t>(len)),
                       hb(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) {
      hw[size_t(i)] = 0.5f + float(i % 5) / 4.0f;
      hb[size_t(i)] = float(i % 3) - 1.0f;
    }
    plexus::Tensor x = on(hx, {rows, len}, dev), w = on(hw, {len}, dev), b = on(hb, {len}, dev);
    std::vector<double> ln(hx.size());
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = &hx[size_t(r * len)];
      double mean = 0, var = 0;
      for (int64_t i = 0; i < len; ++i) mean += row[i];
      mean /= double(len);
      for (int64_t i = 0; i < len; ++i) var += (row[i] - mean) * (row[i] - mean);
      double rstd = 1 / std::sqrt(var / double(len) + 1e-5);
      for (int64_t i = 0; i < len; ++i)
        ln[size_t(r * len + i)] = (row[i] - mean) * rstd * hw[size_t(i)] + hb[size_t(i)];
    }
    CHECK(worst(plexus::layer_norm(x, {len}, w, b).cpu().tolist<float>(), ln) < 1e-6);
  }
  plexus::unload_plugins();
}
