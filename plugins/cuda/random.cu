// Random ops: uniform_, normal_, bernoulli_.float. Element i of self, in
// row-major order of its sizes, takes the Philox words of (seed, offset + i)
// (Note [random streams] in plexus/sdk/philox.hpp), so a GPU gives the cpu
// plugin's and the host composite's stream: bit for bit for bernoulli and a
// [0, 1) uniform, to the rounding of a multiply-add or of log/cos otherwise.
#include <cstdint>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "plexus/sdk/philox.hpp"

namespace plexus::gpu {
namespace {

// One thread per element (grid-stride): self[i] = f(words of element i).
template <typename T, typename F>
__global__ void random_kernel(Layout<1> l, uint64_t seed, uint64_t offset, F f) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[1];
    offsets_of(l, i, off);
    static_cast<T*>(l.data[0])[off[0]] = T(f(sdk::random_words(seed, offset, uint64_t(i))));
  }
}

template <typename T, typename F>
void launch_random(const plexus_kernel_call& call, int64_t seed_at, F f) {
  sdk::Args args(call);
  Layout<1> l = make_layout<1>(call, {tensor_arg(call, 0)});
  if (l.numel == 0) return;
  auto* kernel = &random_kernel<T, F>;
  PLEXUS_LAUNCH(kernel, blocks_for(l.numel), kBlockThreads, 0, stream_of(call), l,
                uint64_t(args.integer(seed_at)), uint64_t(args.integer(seed_at + 1)), f);
  check_launch(call, "random_kernel");
}

// uniform_ (Normal false: a = from, b = to - from) and normal_ (a = mean,
// b = std): plexus/sdk/philox.hpp's values in C (float, or double for float64).
template <typename C, bool Normal>
struct Fill {
  C a, b;
  __device__ C operator()(const sdk::PhiloxWords& r) const {
    return Normal ? sdk::normal_value<C>(r, a, b) : sdk::uniform_value<C>(r, a, b);
  }
};
template <typename C>
struct Bernoulli {
  uint32_t threshold;
  __device__ C operator()(const sdk::PhiloxWords& r) const {
    return sdk::bernoulli_draw(r, threshold) ? C(1) : C(0);
  }
};

// uniform_(self, from, to, *, seed, offset) and normal_(self, mean, std, *, seed, offset)
template <bool Normal>
void fill(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const double p0 = args.floating(1), p1 = args.floating(2);
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    launch_random<T>(call, 3, Fill<C, Normal>{C(p0), C(Normal ? p1 : p1 - p0)});
  });
}

// bernoulli_.float(self, p, *, seed, offset): 1 or 0 in self's dtype (bool as a byte).
void bernoulli_(const plexus_kernel_call& call) {
  const uint32_t threshold = sdk::bernoulli_threshold(sdk::Args(call).floating(1));
  if (call.dtype == PLEXUS_DTYPE_BOOL)
    return launch_random<uint8_t>(call, 2, Bernoulli<uint8_t>{threshold});
  visit_numeric(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_random<T>(call, 2, Bernoulli<compute_t<T>>{threshold});
  });
}

}  // namespace

void register_random(GpuBackend& b) {
  b.register_kernel<&fill<false>>("uniform_", sdk::kFloatingDTypes);
  b.register_kernel<&fill<true>>("normal_", sdk::kFloatingDTypes);
  b.register_kernel<&bernoulli_>("bernoulli_.float", sdk::kAllDTypes);
}

}  // namespace plexus::gpu
