// The vulkan plugin's packed float32 matrix products (plugins/vulkan/matmul.cpp),
// checked against products in double.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <tuple>
#include <vector>

#include "packed.h"
#include "plexus/ops_nn.h"

using namespace vulkan_test;

namespace {

// a [m, k] @ b [k, n] in double, plus beta * c[i][j] from c(i, j) when given.
std::vector<double> product(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                            int64_t k, int64_t n, double alpha = 1, double beta = 0,
                            const std::function<double(int64_t, int64_t)>& c = {}) {
  std::vector<double> r(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += double(a[size_t(i * k + l)]) * b[size_t(l * n + j)];
      r[size_t(i * n + j)] = alpha * s + (c ? beta * c(i, j) : 0.0);
    }
  return r;
}

}  // namespace

// Float32 products with K and N multiples of 4 take shaders/matmul_packed.comp
// (16-row x 64-column tiles, so M, N around and beyond the tile edges).
TEST_CASE("packed sgemm: mm, addmm with a bias or a matrix, bmm") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  {
    for (auto [m, k, n] :
         {std::tuple<int64_t, int64_t, int64_t>{1, 4, 4}, {17, 8, 68}, {33, 132, 260}}) {
      CAPTURE(m, k, n);
      std::vector<float> ha = matrix(m, k), hb = matrix(k, n), hc = matrix(m, n),
                         hbias = matrix(1, n);
      for (float& v : hb) v = v / 4 - 0.5f;
      plexus::Tensor a = on(ha, {m, k}, dev), b = on(hb, {k, n}, dev);
      plexus::Tensor c = on(hc, {m, n}, dev), bias = on(hbias, {n}, dev);
      CHECK(worst(plexus::mm(a, b).cpu().tolist<float>(), product(ha, hb, m, k, n)) < 1e-5);
      CHECK(worst(plexus::addmm(bias, a, b, 0.5, 2).cpu().tolist<float>(),
                  product(ha, hb, m, k, n, 2, 0.5,
                          [&](int64_t, int64_t j) { return hbias[size_t(j)]; })) < 1e-5);
      CHECK(worst(plexus::addmm(c, a, b, -1, 1).cpu().tolist<float>(),
                  product(ha, hb, m, k, n, 1, -1,
                          [&](int64_t i, int64_t j) { return hc[size_t(i * n + j)]; })) < 1e-5);
    }
    const int64_t batch = 3, m = 20, k = 12, n = 8;
    std::vector<float> ha = matrix(batch * m, k), hb = matrix(batch * k, n);
    std::vector<float> got =
        plexus::bmm(on(ha, {batch, m, k}, dev), on(hb, {batch, k, n}, dev)).cpu().tolist<float>();
    double w = 0;
    for (int64_t z = 0; z < batch; ++z) {
      std::vector<float> az(ha.begin() + z * m * k, ha.begin() + (z + 1) * m * k);
      std::vector<float> bz(hb.begin() + z * k * n, hb.begin() + (z + 1) * k * n);
      std::vector<float> gz(got.begin() + z * m * n, got.begin() + (z + 1) * m * n);
      w = std::max(w, worst(gz, product(az, bz, m, k, n)));
    }
    CHECK(w < 1e-5);
  }
  plexus::unload_plugins();
}
