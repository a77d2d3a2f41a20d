// The vulkan plugin's packed copies (plugins/vulkan/copy.cpp): one buffer copy
// for contiguous sources, a texel gather for strided 4-byte ones.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "packed.h"

using namespace vulkan_test;

// copy_ of one dtype into a contiguous tensor: contiguous sources are one
// buffer copy, strided 4-byte ones go through shaders/copy_gather.comp.
TEST_CASE("packed copies: transposes, 3-d permutes and ranges of one storage") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  for (auto [a, b] : {std::pair<int64_t, int64_t>{8, 4}, {12, 20}, {300, 64}, {5, 8}}) {
    CAPTURE(a, b);
    std::vector<float> hx = matrix(a, b);
    plexus::Tensor x = on(hx, {a, b}, dev);
    std::vector<float> t = x.t().contiguous().tolist<float>();  // [b, a]
    int bad = 0;
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < a; ++j) bad += t[size_t(i * a + j)] != hx[size_t(j * b + i)];
    CHECK(bad == 0);
  }
  {                                         // tensors go before the plugin is unloaded
    std::vector<float> h3 = matrix(6, 40);  // [6, 5, 8] permuted to [5, 6, 8]
    plexus::Tensor x3 = on(h3, {6, 5, 8}, dev);
    std::vector<float> p = x3.permute({1, 0, 2}).contiguous().tolist<float>();
    int bad = 0;
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 6; ++j)
        for (int64_t k = 0; k < 8; ++k)
          bad += p[size_t((i * 6 + j) * 8 + k)] != h3[size_t((j * 5 + i) * 8 + k)];
    CHECK(bad == 0);
    // Two ranges of one storage (the core refuses overlapping ones): one buffer copy.
    std::vector<float> h = matrix(1, 64);
    plexus::Tensor y = on(h, {64}, dev);
    y.narrow(0, 32, 30).copy_(y.narrow(0, 1, 30));
    std::vector<float> got = y.cpu().tolist<float>();
    int moved = 0;
    for (size_t i = 0; i < 64; ++i) moved += got[i] != (i >= 32 && i < 62 ? h[i - 31] : h[i]);
    CHECK(moved == 0);
  }
  plexus::unload_plugins();
}
