// conv2d on the cpu plugin: groups, stride, padding, dilation, bias or none,
// channels-last and strided inputs, in every catalog dtype, against a naive
// loop written here.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "plexus/dtype_dispatch.h"
#include "plexus/ops.h"
#include "plugins/cpu/host_values.h"

using namespace plexus;
using plexus::testing::make;
using plexus::testing::values;

namespace {

std::vector<double> random_reals(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

struct Params {
  int64_t n, c, h, w, oc, kh, kw;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  bool bias = true;
  int64_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
};

// conv2d by its definition, in double, on row-major values.
std::vector<double> naive_conv(const Params& p, const std::vector<double>& x,
                               const std::vector<double>& wt, const std::vector<double>& b) {
  int64_t oh = p.oh(), ow = p.ow(), cg = p.c / p.groups, og = p.oc / p.groups;
  std::vector<double> out;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < p.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double s = p.bias ? b[size_t(o)] : 0.0;
          int64_t g = o / og;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < p.kh; ++ky)
              for (int64_t kx = 0; kx < p.kw; ++kx) {
                int64_t iy = y * p.sh - p.ph + ky * p.dh, ix = xo * p.sw - p.pw + kx * p.dw;
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                int64_t c = g * cg + ci;
                s += x[size_t(((n * p.c + c) * p.h + iy) * p.w + ix)] *
                     wt[size_t(((o * cg + ci) * p.kh + ky) * p.kw + kx)];
              }
          out.push_back(s);
        }
  return out;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

double tolerance(DType t) {
  switch (t) {
    case DType::F64:
      return 1e-12;
    case DType::F32:
      return 1e-5;
    case DType::F16:
      return 2e-3;
    default:
      return 1.6e-2;  // bf16
  }
}

// Runs conv2d in dtype t on random inputs and compares with the naive loop
// on the same (rounded) values. `layout` views the input channels-last or
// strided instead of contiguous.
enum class Layout { Contiguous, ChannelsLast, Strided };
void check_conv(const Params& p, DType t, Layout layout = Layout::Contiguous, unsigned seed = 1) {
  auto vx = random_reals(size_t(p.n * p.c * p.h * p.w), seed);
  auto vw = random_reals(size_t(p.oc * (p.c / p.groups) * p.kh * p.kw), seed + 1);
  auto vb = random_reals(size_t(p.oc), seed + 2);
  Tensor x = make(t, {p.n, p.c, p.h, p.w}, vx);
  if (layout == Layout::ChannelsLast) {  // the same values stored as [n, h, w, c]
    x = make(t, {p.n, p.h, p.w, p.c}, values(x.permute({0, 2, 3, 1}))).permute({0, 3, 1, 2});
    REQUIRE(x.stride(1) == 1);
  } else if (layout == Layout::Strided) {  // every other column of a wider buffer
    Tensor wide = make(t, {p.n, p.c, p.h, 2 * p.w},
                       std::vector<double>(size_t(p.n * p.c * p.h * 2 * p.w), 7.0));
    x = wide.slice(3, 0, std::nullopt, 2);
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      T* base = static_cast<T*>(x.data_ptr());
      for (size_t i = 0; i < vx.size(); ++i) base[2 * i] = convert_value<T>(vx[i]);
    });
  }
  Tensor w = make(t, {p.oc, p.c / p.groups, p.kh, p.kw}, vw);
  Tensor b = p.bias ? make(t, {p.oc}, vb) : Tensor();
  Tensor out = conv2d(x, w, b, {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, p.groups);
  REQUIRE(out.sizes() == IntArrayRef({p.n, p.oc, p.oh(), p.ow()}));
  CHECK(out.dtype() == t);
  check_close(values(out), naive_conv(p, values(x), values(w), p.bias ? values(b) : vb),
              tolerance(t) * std::sqrt(double(p.c / p.groups * p.kh * p.kw)));
}

const DType kDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16};

}  // namespace

TEST_CASE("conv2d of a hand-checked 3x3 input", "[conv]") {
  for (DType t : kDTypes) {
    INFO(dtype_name(t));
    Tensor x = make(t, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Tensor w = make(t, {1, 1, 2, 2}, {1, 0, 0, 1});  // x[i][j] + x[i+1][j+1]
    CHECK(values(conv2d(x, w)) == std::vector<double>{6, 8, 12, 14});
    Tensor b = make(t, {1}, {-1});
    CHECK(values(conv2d(x, w, b)) == std::vector<double>{5, 7, 11, 13});
    // Padding 1 and stride 2: corners of the padded input.
    CHECK(values(conv2d(x, w, {}, {2, 2}, {1, 1})) == std::vector<double>{1, 3, 7, 14});
  }
}

TEST_CASE("conv2d with groups, stride, padding, dilation and bias matches a naive loop", "[conv]") {
  Params plain{2, 4, 9, 11, 6, 3, 3};
  plain.ph = plain.pw = 1;
  Params strided{2, 6, 13, 10, 4, 3, 2};
  strided.sh = 2, strided.sw = 3, strided.ph = 1, strided.pw = 2, strided.dh = 2, strided.dw = 1,
  strided.groups = 2, strided.bias = false;
  Params depthwise{1, 8, 7, 7, 8, 3, 3};
  depthwise.groups = 8, depthwise.ph = depthwise.pw = 2, depthwise.dh = depthwise.dw = 2;
  Params pointwise{3, 5, 4, 6, 7, 1, 1};
  Params skipping{1, 3, 6, 7, 4, 1, 2};  // stride 2 leaves the last row and column unread
  skipping.sh = skipping.sw = 2;
  struct Named {
    const char* what;
    Params p;
  };
  for (const Named& c : {Named{"3x3, padding 1, bias", plain},
                         Named{"stride 2x3, padding 1x2, dilation 2x1, 2 groups, no bias", strided},
                         Named{"depthwise, dilation 2", depthwise}, Named{"1x1", pointwise},
                         Named{"stride 2 past the last full window", skipping}})
    for (DType t : kDTypes) {
      INFO(c.what << ", " << dtype_name(t));
      check_conv(c.p, t);
    }
}

TEST_CASE("conv2d takes channels-last and strided inputs", "[conv]") {
  Params p{2, 16, 8, 8, 8, 3, 3};
  p.ph = p.pw = 1;
  for (DType t : kDTypes) {
    INFO(dtype_name(t));
    check_conv(p, t, Layout::ChannelsLast, 5);
    check_conv(p, t, Layout::Strided, 6);
  }
}

TEST_CASE("conv2d writes a channels-last out, and an unbatched input works", "[conv]") {
  Params p{2, 3, 6, 5, 4, 3, 3};
  p.ph = p.pw = 1;
  auto vx = random_reals(size_t(p.n * p.c * p.h * p.w), 7);
  auto vw = random_reals(size_t(p.oc * p.c * p.kh * p.kw), 8);
  auto vb = random_reals(size_t(p.oc), 9);
  for (DType t : kDTypes) {
    INFO(dtype_name(t));
    Tensor x = make(t, {p.n, p.c, p.h, p.w}, vx), w = make(t, {p.oc, p.c, p.kh, p.kw}, vw);
    Tensor b = make(t, {p.oc}, vb);
    Tensor out = empty({p.n, p.oh(), p.ow(), p.oc}, t).permute({0, 3, 1, 2});
    conv2d_out(out, x, w, b, {1, 1}, {1, 1});
    auto want = naive_conv(p, values(x), values(w), values(b));
    check_close(values(out), want, tolerance(t) * 6);
    // [c, h, w]: the batch dim is added around the call.
    Tensor one = conv2d(x.select(0, 1), w, b, {1, 1}, {1, 1});
    REQUIRE(one.sizes() == IntArrayRef({p.oc, p.oh(), p.ow()}));
    std::vector<double> second(want.begin() + int64_t(want.size()) / 2, want.end());
    check_close(values(one), second, tolerance(t) * 6);
  }
}

TEST_CASE("conv2d of broadcast (stride 0) tensors and of zero input channels", "[conv]") {
  for (DType t : kDTypes) {
    INFO(dtype_name(t));
    // Every row of the input is [1, 2, 3] and every weight is 1: stride 0 in both.
    Tensor x = make(t, {1, 1, 1, 3}, {1, 2, 3}).expand({2, 2, 3, 3});
    Tensor w = make(t, {1, 1, 1, 1}, {1}).expand({3, 2, 2, 2});
    Tensor out = conv2d(x, w);
    REQUIRE(out.sizes() == IntArrayRef({2, 3, 2, 2}));
    // Each output sums 2 channels x 2 rows x two neighbours: 4 * (x[j] + x[j + 1]).
    std::vector<double> want;
    for (int row = 0; row < 2 * 3 * 2; ++row) want.insert(want.end(), {12, 20});
    CHECK(values(out) == want);
    // No input channels: the output is the bias.
    Tensor none = conv2d(empty({1, 0, 2, 2}, t), empty({2, 0, 1, 1}, t), make(t, {2}, {5, -1}));
    CHECK(values(none) == std::vector<double>{5, 5, 5, 5, -1, -1, -1, -1});
  }
}
