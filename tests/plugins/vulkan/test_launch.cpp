// The vulkan plugin's packed elementwise path (plugins/vulkan/launch.cpp):
// contiguous float32 elementwise kernels whose tensors start on 16 bytes run
// as 16-byte texel loads and stores, and the last n % 4 elements go the
// general way. These cases cross both boundaries: lengths around multiples
// of 4 and views starting 0..5 elements into their storage (aligned or not),
// for a binary op, a binary op with a scalar, and a unary op, each checked
// element by element against the same arithmetic on the host; and row
// broadcasts, the one broadcast the packed path takes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "packed.h"
#include "plexus/ops_elementwise.h"

using namespace vulkan_test;

TEST_CASE("packed float32 kernels are right at every length and alignment") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  for (int64_t n : {1, 3, 4, 5, 7, 8, 9, 4097, 1 << 20, (1 << 20) + 3}) {
    for (int64_t off_a : {0, 1, 4, 5}) {
      int64_t off_b = (off_a + 3) % 6, off_out = off_a == 4 ? 4 : 2 - off_a % 2;
      CAPTURE(n, off_a, off_b, off_out);
      plexus::Tensor a = values(n, off_a, 0.25f, dev), b = values(n, off_b, -1.5f, dev);
      plexus::Tensor out =
          plexus::zeros({n + off_out + 2}, plexus::TensorOptions(plexus::DType::F32, dev));
      plexus::Tensor o = out.narrow(0, off_out, n);
      plexus::add_out(o, a, b, 2);
      std::vector<float> ha = a.cpu().tolist<float>(), hb = b.cpu().tolist<float>();
      std::vector<float> sum = out.cpu().tolist<float>();
      std::vector<float> prod = plexus::mul(a, plexus::Scalar(3.0)).cpu().tolist<float>();
      std::vector<float> relu = plexus::relu(b).cpu().tolist<float>();
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        float want = ha[i] + 2.0f * hb[i];
        bad += sum[off_out + i] != want;
        bad += prod[i] != ha[i] * 3.0f;
        bad += relu[i] != std::max(hb[i], 0.0f);
      }
      // Nothing around the output view was written.
      for (int64_t i = 0; i < off_out; ++i) bad += sum[i] != 0.0f;
      for (int64_t i = off_out + n; i < int64_t(sum.size()); ++i) bad += sum[i] != 0.0f;
      CHECK(bad == 0);
    }
  }
  plexus::unload_plugins();
}

// A row broadcast (a [P] or [1, P] input expanded over leading dims) takes
// the packed path when P is a multiple of 4 and each dispatch starts on a row
// (launch.cpp); other rows go the general way. Both must give the same sums,
// with the broadcast on either side (sub is not symmetric), over 2-d and 3-d
// outputs, and over an output of more than one dispatch (16M elements each).
TEST_CASE("packed float32 row broadcasts match the host at every row length") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  struct Shape {
    std::vector<int64_t> out, row;
  };
  std::vector<Shape> shapes = {
      {{3, 4}, {4}},        {{5, 8}, {1, 8}},       {{7, 12}, {12}},
      {{64, 1024}, {1024}}, {{9, 6}, {6}},          {{2, 3, 8}, {3, 8}},
      {{4, 5, 4}, {1, 4}},  {{4097, 4096}, {4096}}, {{4097, 4100}, {4100}}};
  for (const Shape& sh : shapes) {
    int64_t n = 1, p = 1;
    for (int64_t v : sh.out) n *= v;
    for (int64_t v : sh.row) p *= v;
    CAPTURE(sh.out, sh.row);
    std::vector<float> hm(static_cast<size_t>(n)), hr(static_cast<size_t>(p));
    for (size_t i = 0; i < hm.size(); ++i) hm[i] = float(int64_t(i % 89) - 30) * 0.5f;
    for (size_t i = 0; i < hr.size(); ++i) hr[i] = float(int64_t(i % 13) - 6) * 0.25f;
    plexus::Tensor m = on(hm, sh.out, dev), row = on(hr, sh.row, dev);
    std::vector<float> diff = plexus::sub(m, row).cpu().tolist<float>();
    std::vector<float> rdiff = plexus::sub(row, m).cpu().tolist<float>();
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      float want = hm[size_t(i)] - hr[size_t(i % p)];
      bad += diff[size_t(i)] != want;
      bad += rdiff[size_t(i)] != -want;
    }
    CHECK(bad == 0);
  }
  plexus::unload_plugins();
}
