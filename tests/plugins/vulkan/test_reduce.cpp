// The vulkan plugin's packed sum and mean (plugins/vulkan/reduce.cpp), checked
// against sums in double.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "packed.h"
#include "plexus/ops_nn.h"

using namespace vulkan_test;

// sum and mean over trailing dims of a multiple of 4 elements take the packed
// two-pass form of shaders/reduce.comp (partial sums, then one per output).
TEST_CASE("packed sum and mean match double arithmetic") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  for (auto [rows, len] :
       {std::pair<int64_t, int64_t>{1, 4}, {1, 1 << 20}, {3, 4000}, {100, 64}, {5000, 8}}) {
    CAPTURE(rows, len);
    std::vector<float> hx = matrix(rows, len);
    plexus::Tensor x = on(hx, {rows, len}, dev);
    std::vector<double> sums(static_cast<size_t>(rows)), means(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < len; ++i) sums[size_t(r)] += hx[size_t(r * len + i)];
      means[size_t(r)] = sums[size_t(r)] / double(len);
    }
    CHECK(worst(plexus::sum(x, std::vector<int64_t>{1}).cpu().tolist<float>(), sums) < 1e-6);
    CHECK(worst(plexus::mean(x, std::vector<int64_t>{-1}).cpu().tolist<float>(), means) < 1e-6);
    if (rows == 1) {
      CHECK(worst(plexus::sum(x).cpu().tolist<float>(), sums) < 1e-6);
    }
  }
  plexus::unload_plugins();
}
