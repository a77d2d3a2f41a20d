// Atomics under contention: every block of a grid (blocks run in parallel on
// OS threads) hammers the same words.
#include <thread>

#include "simt_test.h"

using simt_test::DeviceBuffer;

namespace {

__global__ void contend(int* counter, float* fsum, unsigned long long* usum, int* maximum,
                        int* minimum, unsigned* exchanges, int* cas_counter) {
  int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  for (int k = 0; k < 4; ++k) {
    atomicAdd(counter, 1);
    atomicAdd(fsum, 0.5f);
    atomicAdd(usum, (unsigned long long)i);
    atomicMax(maximum, (i * 7919) % 10007);
    atomicMin(minimum, (i * 7919) % 10007 - 5000);
    atomicExch(exchanges, unsigned(i));
    int old = *cas_counter, seen;  // increment by CAS loop, as kernels build other atomics
    while ((seen = atomicCAS(cas_counter, old, old + 1)) != old) old = seen;
  }
}

// A grid-stride loop: a fixed grid covers any n.
__global__ void grid_stride_fill(int* out, int n) {
  for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += int(blockDim.x * gridDim.x))
    out[i] += i;
}

}  // namespace

TEST_CASE("atomics under contention from parallel blocks lose no update") {
  unsigned blocks = 64, threads = 128, n = blocks * threads;
  DeviceBuffer<int> counter(std::vector<int>{0}), maximum(std::vector<int>{-1}),
      minimum(std::vector<int>{1 << 30}), cas(std::vector<int>{0});
  DeviceBuffer<float> fsum(std::vector<float>{0});
  DeviceBuffer<unsigned long long> usum(std::vector<unsigned long long>{0});
  DeviceBuffer<unsigned> exch(std::vector<unsigned>{~0u});
  PLEXUS_LAUNCH(contend, dim3(blocks), dim3(threads), 0, nullptr, counter.get(), fsum.get(),
                usum.get(), maximum.get(), minimum.get(), exch.get(), cas.get());
  int max_expected = -1, min_expected = 1 << 30;
  for (int i = 0; i < int(n); ++i) {
    max_expected = std::max(max_expected, (i * 7919) % 10007);
    min_expected = std::min(min_expected, (i * 7919) % 10007 - 5000);
  }
  REQUIRE(counter.read()[0] == int(4 * n));
  REQUIRE(fsum.read()[0] == float(2 * n));  // halves sum exactly in float up to 2^24
  REQUIRE(usum.read()[0] == 4ull * (n - 1) * n / 2);
  REQUIRE(maximum.read()[0] == max_expected);
  REQUIRE(minimum.read()[0] == min_expected);
  REQUIRE(exch.read()[0] < n);
  REQUIRE(cas.read()[0] == int(4 * n));
}

TEST_CASE("a grid-stride loop with a small grid covers every element once") {
  int n = 100003;
  DeviceBuffer<int> out(std::vector<int>(size_t(n), 0));
  PLEXUS_LAUNCH(grid_stride_fill, dim3(7), dim3(96), 0, nullptr, out.get(), n);
  std::vector<int> got = out.read();
  for (int i = 0; i < n; ++i) REQUIRE(got[size_t(i)] == i);
}
