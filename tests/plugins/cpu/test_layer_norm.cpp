// The cpu plugin's layer_norm kernel on small hand-checked cases.
#include <catch2/catch.hpp>
#include <cmath>

#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plugins/cpu/float_tensors.h"

using namespace plexus;
using plexus::testing::check_close;
using plexus::testing::Floats;
using plexus::testing::iota;
using plexus::testing::Sizes;

TEST_CASE("layer_norm against hand-computed values", "[layer_norm]") {
  // mean 2.5, biased variance 1.25
  Tensor x = tensor<float>({1, 2, 3, 4}, {1, 4});
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  check_close(layer_norm(x, Sizes{4}).tolist<float>(), {-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r});
  Tensor w = tensor<float>({1, 2, 3, 4}, {4}), b = tensor<float>({0.5, 0, 0, -1}, {4});
  check_close(layer_norm(x, Sizes{4}, w, b).tolist<float>(),
              {-1.5f * r + 0.5f, -1.0f * r, 1.5f * r, 6.0f * r - 1});
  float r0 = 1.0f / std::sqrt(1.25f);
  check_close(layer_norm(x, Sizes{4}, {}, {}, 0.0).tolist<float>(),
              {-1.5f * r0, -0.5f * r0, 0.5f * r0, 1.5f * r0});
}

TEST_CASE("layer_norm over two dims, rows and strided views", "[layer_norm]") {
  // Rows [0, 1, 2, 3] and [4, 5, 6, 7]: each has variance 1.25 about its mean.
  Tensor x = iota({2, 2, 2});
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  Floats want{-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r, -1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r};
  check_close(layer_norm(x, Sizes{2, 2}).tolist<float>(), want);
  // The transpose of [[0, 1, 2, 3], [4, 5, 6, 7]] normalized over its rows of 2.
  Tensor t = iota({2, 4}).t();  // [[0, 4], [1, 5], [2, 6], [3, 7]]
  float r2 = 1.0f / std::sqrt(4.0f + 1e-5f);
  check_close(layer_norm(t, Sizes{2}).tolist<float>(),
              {-2 * r2, 2 * r2, -2 * r2, 2 * r2, -2 * r2, 2 * r2, -2 * r2, 2 * r2});
  Tensor w = tensor<float>({1, 0, 2, 0, 3, 0}, {3, 2}).select(1, 0);  // [1, 2, 3], stride 2
  Tensor y = layer_norm(tensor<float>({1, 2, 3}, {3}), Sizes{3}, w);
  float r3 = 1.0f / std::sqrt(2.0f / 3 + 1e-5f);
  check_close(y.tolist<float>(), {-r3, 0, 3 * r3});
}

TEST_CASE("layer_norm of a constant row gives the bias", "[layer_norm]") {
  Tensor x = full({2, 3}, 7.0, TensorOptions(DType::F32));
  Tensor b = tensor<float>({1, 2, 3}, {3});
  CHECK(layer_norm(x, Sizes{3}, {}, b).tolist<float>() == Floats{1, 2, 3, 1, 2, 3});
}

TEST_CASE("layer_norm in float16, bfloat16 and float64", "[layer_norm]") {
  float r = 1.0f / std::sqrt(1.25f + 1e-5f);
  Floats want{-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r};
  Tensor x = tensor<float>({1, 2, 3, 4}, {4});
  Tensor h = layer_norm(x.to(DType::F16), Sizes{4});
  CHECK(h.dtype() == DType::F16);
  check_close(h.tolist<float>(), want, 1e-3);
  check_close(layer_norm(x.to(DType::BF16), Sizes{4}).tolist<float>(), want, 1e-2);
  Tensor d = layer_norm(x.to(DType::F64), Sizes{4});
  CHECK(d.tolist<double>()[3] == Approx(1.5 / std::sqrt(1.25 + 1e-5)).epsilon(1e-12));
}
