// __syncthreads and shared memory: threads communicate through static and
// dynamic shared memory across barriers; a divergent barrier is an error.
#include "simt_test.h"

using simt_test::DeviceBuffer;
using simt_test::sync_failure;

namespace {

// Each thread writes its index into shared memory, then reads its mirror's:
// without the barrier, every thread but the last would read a value not yet written.
__global__ void reverse_block(int* out) {
  __shared__ int tile[256];
  unsigned t = threadIdx.x;
  tile[t] = int(t + blockIdx.x * blockDim.x);
  __syncthreads();
  out[t + blockIdx.x * blockDim.x] = tile[blockDim.x - 1 - t];
}

// Tree sum in dynamic shared memory: log2(n) barriers in a loop.
__global__ void block_sum(const float* in, float* out, int n) {
  PLEXUS_DYNAMIC_SHARED(float, partial);
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  partial[t] = int(i) < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// Threads past n leave before the barrier: a divergent barrier.
__global__ void exit_before_barrier(float* data, int n) {
  if (int(threadIdx.x) >= n) return;
  __syncthreads();
  data[threadIdx.x] = 1.0f;
}

// 2-D blocks in a 3-D grid: each thread writes its linear coordinates.
__global__ void coordinates(unsigned* out) {
  unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread = threadIdx.x + blockDim.x * threadIdx.y;
  out[block * blockDim.x * blockDim.y + thread] = block * 1000 + threadIdx.y * 100 + threadIdx.x;
}

}  // namespace

TEST_CASE("threads exchange values through static shared memory across __syncthreads") {
  DeviceBuffer<int> out(4 * 256);
  PLEXUS_LAUNCH(reverse_block, dim3(4), dim3(256), 0, nullptr, out.get());
  REQUIRE(gpuGetLastError() == gpuSuccess);
  std::vector<int> got = out.read();
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 256; ++t) REQUIRE(got[size_t(b * 256 + t)] == b * 256 + 255 - t);
}

TEST_CASE("a block reduction over dynamic shared memory sums each block") {
  int n = 1000;
  std::vector<float> in(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) in[size_t(i)] = float(i % 7);
  DeviceBuffer<float> d_in(in), d_out(8);
  PLEXUS_LAUNCH(block_sum, dim3(8), dim3(128), 128 * sizeof(float), nullptr, d_in.get(),
                d_out.get(), n);
  std::vector<float> got = d_out.read();
  for (int b = 0; b < 8; ++b) {
    float expected = 0;
    for (int i = b * 128; i < std::min(n, (b + 1) * 128); ++i) expected += in[size_t(i)];
    REQUIRE(got[size_t(b)] == expected);
  }
}

TEST_CASE("a barrier some threads never reach fails the launch instead of hanging") {
  DeviceBuffer<float> data(64);
  PLEXUS_LAUNCH(exit_before_barrier, dim3(1), dim3(64), 0, nullptr, data.get(), 10);
  std::string failure = sync_failure();
  REQUIRE_THAT(failure, Catch::Contains("exit_before_barrier") &&
                            Catch::Contains("__syncthreads reached by 10 of 64 threads"));
  SECTION("the failure is sticky until cleared, then the device works again") {
    PLEXUS_LAUNCH(exit_before_barrier, dim3(1), dim3(64), 0, nullptr, data.get(), 64);
    REQUIRE(sync_failure().empty());
  }
}

TEST_CASE("multi-dimensional grids and blocks give every thread its coordinates") {
  dim3 grid(3, 2, 2), block(8, 4);
  DeviceBuffer<unsigned> out(12 * 32);
  PLEXUS_LAUNCH(coordinates, grid, block, 0, nullptr, out.get());
  std::vector<unsigned> got = out.read();
  for (unsigned b = 0; b < 12; ++b)
    for (unsigned y = 0; y < 4; ++y)
      for (unsigned x = 0; x < 8; ++x) REQUIRE(got[b * 32 + y * 8 + x] == b * 1000 + y * 100 + x);
}

TEST_CASE("a launch with a bad configuration is refused at once") {
  DeviceBuffer<int> out(4);
  PLEXUS_LAUNCH(reverse_block, dim3(1), dim3(2048), 0, nullptr, out.get());
  REQUIRE(gpuGetLastError() == gpuErrorInvalidConfiguration);
  PLEXUS_LAUNCH(reverse_block, dim3(0), dim3(32), 0, nullptr, out.get());
  REQUIRE(gpuGetLastError() == gpuErrorInvalidConfiguration);
  PLEXUS_LAUNCH(block_sum, dim3(1), dim3(32), 64 * 1024, nullptr, nullptr, nullptr, 0);
  REQUIRE(gpuGetLastError() == gpuErrorInvalidConfiguration);
}
