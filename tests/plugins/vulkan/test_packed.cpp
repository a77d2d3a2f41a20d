// The vulkan plugin's packed path (plugins/vulkan/launch.cpp): contiguous
// float32 elementwise kernels whose tensors start on 16 bytes run as 16-byte
// texel loads and stores, and the last n % 4 elements go the general way.
// These cases cross both boundaries: lengths around multiples of 4 and views
// starting 0..5 elements into their storage (aligned or not), for a binary op,
// a binary op with a scalar, and a unary op, each checked element by element
// against the same arithmetic on the host.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "plexus/device.h"
#include "plexus/factories.h"
#include "plexus/ops_elementwise.h"
#include "plexus/ops_nn.h"
#include "plexus/plugins.h"
#include "plexus/tensor.h"

namespace {

void load_vulkan_plugin() {
  plexus::PluginLoadOptions o;
  o.search_paths = {PLEXUS_VULKAN_PLUGIN_DIR};
  o.use_environment = false;
  o.use_default_paths = false;
  o.allow = {"vulkan"};
  for (const plexus::PluginRecord& r : plexus::load_plugins(o))
    if (r.name == "vulkan") REQUIRE(r.state == plexus::PluginRecord::State::Loaded);
}

// n values starting `offset` elements into a storage of offset + n + 3, on dev.
plexus::Tensor values(int64_t n, int64_t offset, float scale, plexus::Device dev) {
  std::vector<float> host(size_t(offset + n + 3));
  for (size_t i = 0; i < host.size(); ++i) host[i] = scale * float(int64_t(i % 97) - 40);
  plexus::Tensor all = plexus::from_blob(host.data(), {int64_t(host.size())},
                                         plexus::TensorOptions(plexus::DType::F32))
                           .to(dev);
  return all.narrow(0, offset, n);
}

}  // namespace

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

namespace {

// x[r][i] of a rows x len matrix: varied, with a few large values.
std::vector<float> matrix(int64_t rows, int64_t len) {
  std::vector<float> v(size_t(rows * len));
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(int64_t((k * 37) % 101) - 50) / 8.0f;
  return v;
}

plexus::Tensor on(std::vector<float>& host, plexus::IntArrayRef sizes, plexus::Device dev) {
  return plexus::from_blob(host.data(), sizes, plexus::TensorOptions(plexus::DType::F32)).to(dev);
}

// Largest |got - want| / (1 + |want|).
double worst(const std::vector<float>& got, const std::vector<double>& want) {
  double w = 0;
  for (size_t i = 0; i < want.size(); ++i)
    w = std::max(w, std::abs(double(got[i]) - want[i]) / (1 + std::abs(want[i])));
  return w;
}

}  // namespace

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

// Row kernels with at least 64 rows of a multiple of 4 elements take the
// packed forms of shaders/softmax.comp and layer_norm.comp (rows.cpp; one
// invocation per row).
TEST_CASE("packed softmax, log_softmax and layer_norm match double arithmetic") {
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
    std::vector<double> sm(hx.size()), lsm(hx.size()), ln(hx.size());
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = &hx[size_t(r * len)];
      double mx = -INFINITY, s = 0, mean = 0, var = 0;
      for (int64_t i = 0; i < len; ++i) mx = std::max(mx, double(row[i]));
      for (int64_t i = 0; i < len; ++i) s += std::exp(double(row[i]) - mx);
      for (int64_t i = 0; i < len; ++i) mean += row[i];
      mean /= double(len);
      for (int64_t i = 0; i < len; ++i) var += (row[i] - mean) * (row[i] - mean);
      double rstd = 1 / std::sqrt(var / double(len) + 1e-5);
      for (int64_t i = 0; i < len; ++i) {
        size_t k = size_t(r * len + i);
        sm[k] = std::exp(double(row[i]) - mx) / s;
        lsm[k] = double(row[i]) - mx - std::log(s);
        ln[k] = (row[i] - mean) * rstd * hw[size_t(i)] + hb[size_t(i)];
      }
    }
    CHECK(worst(plexus::softmax(x, 1).cpu().tolist<float>(), sm) < 1e-6);
    CHECK(worst(plexus::log_softmax(x, -1).cpu().tolist<float>(), lsm) < 1e-6);
    CHECK(worst(plexus::layer_norm(x, {len}, w, b).cpu().tolist<float>(), ln) < 1e-6);
  }
  plexus::unload_plugins();
}

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
