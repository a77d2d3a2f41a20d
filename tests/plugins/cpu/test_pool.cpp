// The cpu plugin's max_pool2d kernel on small hand-checked cases.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plugins/cpu/float_tensors.h"

using namespace plexus;
using plexus::testing::Floats;
using plexus::testing::iota;
using plexus::testing::kInf;
using plexus::testing::kNaN;
using plexus::testing::Sizes;
using plexus::testing::sizes_of;

TEST_CASE("max_pool2d windows, strides and batches", "[pool]") {
  Tensor x = iota({1, 1, 4, 4});
  Tensor y = max_pool2d(x, {2, 2});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{5, 7, 13, 15});
  CHECK(max_pool2d(x, {2, 2}, {1, 1}).tolist<float>() == Floats{5, 6, 7, 9, 10, 11, 13, 14, 15});
  CHECK(max_pool2d(x, {1, 2}, {1, 2}).tolist<float>() == Floats{1, 3, 5, 7, 9, 11, 13, 15});
  Tensor b = iota({2, 3, 2, 2});  // one window per plane: its last element
  CHECK(max_pool2d(b, {2, 2}).tolist<float>() == Floats{3, 7, 11, 15, 19, 23});
}

TEST_CASE("max_pool2d pads with -inf", "[pool]") {
  Tensor x = iota({1, 1, 4, 4}, -1, -1);  // -1 .. -16: a zero pad would win every window
  Tensor y = max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{-1, -2, -5, -6});
}

TEST_CASE("max_pool2d with ceil_mode clips the last windows", "[pool]") {
  Tensor x = iota({1, 1, 5, 5});
  Tensor y = max_pool2d(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true);
  CHECK(sizes_of(y) == Sizes{1, 1, 3, 3});
  CHECK(y.tolist<float>() == Floats{6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(sizes_of(max_pool2d(x, {2, 2}, {2, 2})) == Sizes{1, 1, 2, 2});
}

TEST_CASE("max_pool2d with dilation", "[pool]") {
  Tensor x = iota({1, 1, 4, 4});
  Tensor y = max_pool2d(x, {2, 2}, {1, 1}, {0, 0}, {2, 2});
  CHECK(sizes_of(y) == Sizes{1, 1, 2, 2});
  CHECK(y.tolist<float>() == Floats{10, 11, 14, 15});
  Tensor p = max_pool2d(iota({1, 1, 4, 4}, -1), {2, 2}, {1, 1}, {1, 1}, {2, 2});  // padded
  CHECK(sizes_of(p) == Sizes{1, 1, 4, 4});
  CHECK(p.tolist<float>() ==
        Floats{-5, -4, -5, -6, -1, -0.0f, -1, -2, -5, -4, -5, -6, -9, -8, -9, -10});
}

TEST_CASE("max_pool2d matches a direct loop over many window shapes", "[pool]") {
  const int64_t H = 7, W = 9;
  Tensor x = empty({2, 2, H, W}, TensorOptions(DType::F32));
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = std::sin(1.7f * static_cast<float>(i)) * 10 - 20;  // all below 0
  for (int64_t k : {1, 2, 3})
    for (int64_t s : {1, 2, 3})
      for (int64_t pad = 0; pad <= k / 2; ++pad)
        for (int64_t d : {1, 2})
          for (bool ceil : {false, true}) {
            INFO("k " << k << " s " << s << " p " << pad << " d " << d << " ceil " << ceil);
            Tensor y = max_pool2d(x, {k, k}, {s, s}, {pad, pad}, {d, d}, ceil);
            int64_t OH = y.size(2), OW = y.size(3);
            Floats got = y.tolist<float>(), want;
            for (int64_t plane = 0; plane < 4; ++plane)
              for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                  float m = -kInf;
                  for (int64_t i = 0; i < k; ++i)
                    for (int64_t j = 0; j < k; ++j) {
                      int64_t h = oh * s - pad + i * d, w = ow * s - pad + j * d;
                      if (h >= 0 && h < H && w >= 0 && w < W)
                        m = std::max(m, x.data<float>()[plane * H * W + h * W + w]);
                    }
                  want.push_back(m);
                }
            CHECK(got == want);
          }
}

TEST_CASE("max_pool2d propagates NaN, reads strided input, float16", "[pool]") {
  Tensor x = iota({1, 1, 2, 4});
  x.data<float>()[1] = kNaN;
  Floats y = max_pool2d(x, {2, 2}).tolist<float>();
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 7);
  // Channels last: [N, H, W, C] memory viewed as [N, C, H, W].
  Tensor nhwc = iota({1, 2, 2, 2});  // channel c at x[..., c]
  Tensor nchw = nhwc.permute({0, 3, 1, 2});
  CHECK(max_pool2d(nchw, {2, 2}).tolist<float>() == Floats{6, 7});
  Tensor h = max_pool2d(iota({1, 1, 4, 4}).to(DType::F16), {2, 2});
  CHECK(h.dtype() == DType::F16);
  CHECK(h.tolist<float>() == Floats{5, 7, 13, 15});
}
