// A transformer block's attention on real shapes: softmax(Q K^T / sqrt(d)) V,
// a residual add, then layer_norm. Runs on the device named on the command
// line (default cpu) after loading the plugins, checks the result against the
// same computation on the cpu, and prints the time per run.
//
//   plexus-example-attention [device]      e.g. cpu, toydev:0
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "plexus/ops.h"
#include "plexus/plugins.h"

using namespace plexus;

namespace {

// Deterministic inputs: a smooth, varied pattern, no random generator needed.
Tensor pattern(std::vector<int64_t> sizes, double phase) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return sin(arange(n, DType::F32) * 0.37 + phase).view(sizes) * 0.5;
}

// One attention block; every op runs where its inputs live.
Tensor attention(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv) {
  int64_t d = wq.size(1);
  Tensor q = matmul(x, wq), k = matmul(x, wk), v = matmul(x, wv);
  Tensor scores = matmul(q, k.transpose(1, 2)) / std::sqrt(static_cast<double>(d));
  Tensor mixed = matmul(softmax(scores, -1), v);
  return layer_norm(mixed + x, std::vector<int64_t>{d});
}

}  // namespace

int main(int argc, char** argv) {
  try {
    for (const PluginRecord& r : load_plugins())
      if (r.state == PluginRecord::State::Failed)
        std::fprintf(stderr, "plugin %s did not load: %s\n", r.name.c_str(), r.reason.c_str());
    Device device = Device::parse(argc > 1 ? argv[1] : "cpu");

    const int64_t batch = 8, seq = 256, dim = 64;
    Tensor x = pattern({batch, seq, dim}, 0.0);
    Tensor wq = pattern({dim, dim}, 1.0) / 8, wk = pattern({dim, dim}, 2.0) / 8,
           wv = pattern({dim, dim}, 3.0) / 8;

    Tensor xd = x.to(device), wqd = wq.to(device), wkd = wk.to(device), wvd = wv.to(device);
    Tensor out = attention(xd, wqd, wkd, wvd);  // warm-up: primitives, caches
    const int runs = 10;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) out = attention(xd, wqd, wkd, wvd);
    Tensor host = out.cpu();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count() / runs;

    Tensor reference = attention(x, wq, wk, wv);
    double max_diff = amax(abs(host - reference)).item<double>();
    double checksum = sum(host).item<double>();
    std::printf("attention on %s: batch %lld, seq %lld, dim %lld\n", device.str().c_str(),
                static_cast<long long>(batch), static_cast<long long>(seq),
                static_cast<long long>(dim));
    std::printf("  checksum %.6f, max |difference| to the cpu %.3g, %.2f ms per run\n", checksum,
                max_diff, ms);
    if (!(max_diff < 1e-3)) {
      std::fprintf(stderr, "result differs from the cpu by %g\n", max_diff);
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "plexus-example-attention: %s\n", e.what());
    return 1;
  }
}
