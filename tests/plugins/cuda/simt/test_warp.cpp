// Warp shuffles and votes at warp size 32 (CUDA) and 64 (AMD wavefronts).
#include "simt_test.h"

using simt_test::at_both_warp_sizes;
using simt_test::DeviceBuffer;
using simt_test::sync_failure;

namespace {

enum Op { shfl, shfl_xor, shfl_down, shfl_up, ballot, any, all };

// out[t] = the op applied to lane values t*10 (or predicate t % 3 == 0 for votes).
__global__ void warp_op(int op, int arg, int width, long long* out) {
  unsigned t = threadIdx.x;
  int v = int(t) * 10;
  long long r = 0;
  switch (op) {
    case shfl:
      r = __shfl_sync(PLEXUS_FULL_MASK, v, arg, width);
      break;
    case shfl_xor:
      r = __shfl_xor_sync(PLEXUS_FULL_MASK, v, arg, width);
      break;
    case shfl_down:
      r = __shfl_down_sync(PLEXUS_FULL_MASK, v, unsigned(arg), width);
      break;
    case shfl_up:
      r = __shfl_up_sync(PLEXUS_FULL_MASK, v, unsigned(arg), width);
      break;
    case ballot:
      r = (long long)__ballot_sync(PLEXUS_FULL_MASK, t % 3 == 0);
      break;
    case any:
      r = __any_sync(PLEXUS_FULL_MASK, int(t) == arg);
      break;
    case all:
      r = __all_sync(PLEXUS_FULL_MASK, int(t) != arg);
      break;
  }
  out[t] = r;
}

// Warp-level sum by xor butterfly, then one atomic per warp.
__global__ void warp_sum(const float* in, float* total) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(PLEXUS_FULL_MASK, v, offset);
  if (threadIdx.x % unsigned(warpSize) == 0) atomicAdd(total, v);
}

// Lane 0 leaves; the others shuffle: a warp operation missing a lane.
__global__ void shuffle_after_exit(int* out) {
  if (threadIdx.x == 0) return;
  out[threadIdx.x] = __shfl_down_sync(PLEXUS_FULL_MASK, int(threadIdx.x), 1);
}

// Even lanes shuffle, odd lanes vote: divergent warp operations.
__global__ void mixed_ops(int* out) {
  if (threadIdx.x % 2 == 0)
    out[threadIdx.x] = __shfl_xor_sync(PLEXUS_FULL_MASK, 1, 1);
  else
    out[threadIdx.x] = __any_sync(PLEXUS_FULL_MASK, 1);
}

std::vector<long long> run(int op, int arg, int width, unsigned threads) {
  DeviceBuffer<long long> out(threads);
  PLEXUS_LAUNCH(warp_op, dim3(1), dim3(threads), 0, nullptr, op, arg, width, out.get());
  return out.read();
}

}  // namespace

TEST_CASE("shuffles read the lane CUDA names, within each width-wide segment") {
  at_both_warp_sizes([](int warp) {
    unsigned threads = unsigned(2 * warp);
    auto src = run(shfl, 3, warp, threads);
    auto x = run(shfl_xor, 5, warp, threads);
    auto down = run(shfl_down, 4, 16, threads);
    auto up = run(shfl_up, 2, 8, threads);
    for (long long t = 0; t < threads; ++t) {
      long long base = t - t % warp;
      REQUIRE(src[size_t(t)] == (base + 3) * 10);
      REQUIRE(x[size_t(t)] == (t ^ 5) * 10);
      REQUIRE(down[size_t(t)] == (t % 16 + 4 < 16 ? t + 4 : t) * 10);
      REQUIRE(up[size_t(t)] == (t % 8 >= 2 ? t - 2 : t) * 10);
    }
  });
}

TEST_CASE("a shuffle from a lane past a partial last warp returns the own value") {
  at_both_warp_sizes([](int warp) {
    unsigned threads = unsigned(warp + 5);  // second warp has 5 lanes
    auto down = run(shfl_down, 3, warp, threads);
    for (unsigned t = unsigned(warp); t < threads; ++t)
      REQUIRE(down[t] == (t + 3 < threads ? t + 3 : t) * 10);
  });
}

TEST_CASE("votes combine the predicates of exactly the warp's lanes") {
  at_both_warp_sizes([](int warp) {
    unsigned threads = unsigned(2 * warp);
    auto b = run(ballot, 0, warp, threads);
    auto any_hit = run(any, warp + 1, warp, threads), all_hit = run(all, 1, warp, threads);
    unsigned long long expected = 0;
    for (int lane = 0; lane < warp; lane += 3) expected |= 1ull << lane;
    for (unsigned t = 0; t < threads; ++t) {
      unsigned long long lanes_of_warp = expected;
      if (t >= unsigned(warp)) {  // lane i of warp 1 is thread warp + i
        lanes_of_warp = 0;
        for (int lane = 0; lane < warp; ++lane)
          if ((warp + lane) % 3 == 0) lanes_of_warp |= 1ull << lane;
      }
      REQUIRE((unsigned long long)b[t] == lanes_of_warp);
      REQUIRE(any_hit[t] == (t >= unsigned(warp) ? 1 : 0));  // thread warp+1 is in warp 1
      REQUIRE(all_hit[t] == (t >= unsigned(warp) ? 1 : 0));  // thread 1 is in warp 0
    }
  });
}

TEST_CASE("a butterfly warp reduction sums every element once") {
  at_both_warp_sizes([](int) {
    std::vector<float> in(1024);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 13);
    DeviceBuffer<float> d_in(in), total(std::vector<float>{0.0f});
    PLEXUS_LAUNCH(warp_sum, dim3(4), dim3(256), 0, nullptr, d_in.get(), total.get());
    float expected = 0;
    for (float v : in) expected += v;
    REQUIRE(total.read()[0] == expected);
  });
}

TEST_CASE("warp operations some lanes skip or replace fail the launch") {
  at_both_warp_sizes([](int warp) {
    DeviceBuffer<int> out{size_t(warp)};
    PLEXUS_LAUNCH(shuffle_after_exit, dim3(1), dim3(unsigned(warp)), 0, nullptr, out.get());
    REQUIRE_THAT(sync_failure(),
                 Catch::Contains("shuffle_after_exit") && Catch::Contains("1 had exited"));
    PLEXUS_LAUNCH(mixed_ops, dim3(1), dim3(unsigned(warp)), 0, nullptr, out.get());
    REQUIRE_THAT(sync_failure(), Catch::Contains("lanes diverged"));
  });
}
