// The vulkan plugin's packed softmax and log_softmax (plugins/vulkan/softmax.cpp
// through rows.cpp): rows of a multiple of 4 elements, at least 64 of them,
// take the packed form of shaders/softmax.comp (one invocation per row),
// checked against double arithmetic.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "packed.h"
#include "plexus/ops_nn.h"

using namespace vulkan_test;

TEST_CASE("packed softmax and log_softmax match double arithmetic") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  for (auto [rows, len] : {std::pair<int64_t, int64_t>{64, 4}, {80, 12}, {130, 1024}}) {
    CAPTURE(rows, len);
    std::vector<float> hx = matrix(rows, len);
    plexus::Tensor x = on(hx, {rows, len}, dev);
    std::vector<double> sm(hx.size()), lsm(hx.size());
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = &hx[size_t(r * len)];
      double mx = -INFINITY, s = 0;
      for (int64_t i = 0; i < len; ++i) mx = std::max(mx, double(row[i]));
      for (int64_t i = 0; i < len; ++i) s += std::exp(double(row[i]) - mx);
      for (int64_t i = 0; i < len; ++i) {
        size_t k = size_t(r * len + i);
        sm[k] = std::exp(double(row[i]) - mx) / s;
        lsm[k] = double(row[i]) - mx - std::log(s);
      }
    }
    CHECK(worst(plexus::softmax(x, 1).cpu().tolist<float>(), sm) < 1e-6);
    CHECK(worst(plexus::log_softmax(x, -1).cpu().tolist<float>(), lsm) < 1e-6);
  }
  plexus::unload_plugins();
}
