// The vulkan plugin's packed conv2d (plugins/vulkan/conv.cpp: im2col, then the
// packed matrix product), checked against a direct loop in double.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "packed.h"
#include "plexus/ops_nn.h"

using namespace vulkan_test;

// One-group float32 convolutions with OH * OW and C * KH * KW multiples of 4
// take im2col + sgemm (conv.cpp); checked against a direct loop in double,
// with padding, stride, dilation and a bias.
TEST_CASE("packed conv2d: im2col and sgemm") {
  load_vulkan_plugin();
  plexus::Device dev = plexus::Device::parse("vulkan:0");
  {
    struct Shape {
      int64_t n, c, h, w, oc, kh, kw, stride, pad, dil;
    };
    for (Shape s : {Shape{2, 4, 6, 6, 5, 3, 3, 1, 1, 1}, Shape{1, 2, 9, 8, 3, 2, 2, 2, 0, 1},
                    Shape{3, 4, 8, 8, 20, 3, 3, 1, 2, 2}}) {
      CAPTURE(s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.stride, s.pad, s.dil);
      const int64_t oh = (s.h + 2 * s.pad - s.dil * (s.kh - 1) - 1) / s.stride + 1;
      const int64_t ow = (s.w + 2 * s.pad - s.dil * (s.kw - 1) - 1) / s.stride + 1;
      std::vector<float> hx = matrix(s.n * s.c, s.h * s.w), hw = matrix(s.oc, s.c * s.kh * s.kw);
      std::vector<float> hb = matrix(1, s.oc);
      plexus::Tensor y =
          plexus::conv2d(on(hx, {s.n, s.c, s.h, s.w}, dev), on(hw, {s.oc, s.c, s.kh, s.kw}, dev),
                         on(hb, {s.oc}, dev), {s.stride, s.stride}, {s.pad, s.pad}, {s.dil, s.dil});
      std::vector<double> want;
      for (int64_t n = 0; n < s.n; ++n)
        for (int64_t o = 0; o < s.oc; ++o)
          for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j) {
              double acc = hb[size_t(o)];
              for (int64_t c = 0; c < s.c; ++c)
                for (int64_t a = 0; a < s.kh; ++a)
                  for (int64_t b = 0; b < s.kw; ++b) {
                    int64_t ih = i * s.stride - s.pad + a * s.dil,
                            iw = j * s.stride - s.pad + b * s.dil;
                    if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                    acc += double(hx[size_t(((n * s.c + c) * s.h + ih) * s.w + iw)]) *
                           hw[size_t(((o * s.c + c) * s.kh + a) * s.kw + b)];
                  }
              want.push_back(acc);
            }
      CHECK(worst(y.cpu().tolist<float>(), want) < 1e-5);
    }
  }
  plexus::unload_plugins();
}
