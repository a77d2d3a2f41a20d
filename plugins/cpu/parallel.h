// Multi-threading for the cpu kernels, on the OpenMP runtime oneDNN uses (one
// thread pool, no oversubscription), and the parallel elementwise loop every
// elementwise kernel is built on. Kernels check their arguments before they
// enter a parallel region: nothing may throw inside one.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "plexus/plugin.hpp"

namespace plexus::cpu {

// Below this many elements a loop runs on the calling thread. PyTorch's
// grain is 32768; here (2 vCPUs) an OpenMP region costs about 5 us, and a
// process that used one kept its worker spinning, which slowed the serial
// ops after it about twofold: the seed's step at batch 800 took 241 us with
// 2 threads and 115 us with 1 (bench/README.md). Measured crossover for a
// relu: about 150,000 elements.
inline constexpr int64_t kGrain = 262144;

// Calls f(begin, end) on disjoint pieces of [0, n) across the OpenMP threads;
// one call on this thread when n * cost_per_item is below kGrain.
template <typename F>
void parallel_for(int64_t n, int64_t cost_per_item, F&& f) {
  if (n <= 0) return;
  if (n * cost_per_item <= kGrain || omp_get_max_threads() == 1 || omp_in_parallel()) {
    f(int64_t{0}, n);
    return;
  }
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) f(b, e);
  }
}

namespace detail {
// The part [b, e) of a view along dim 0, sizes kept in `sizes`.
template <typename T>
sdk::TensorView<T> rows(const sdk::TensorView<T>& v, int64_t b, int64_t e,
                        std::array<int64_t, sdk::kMaxIterDims>& sizes) {
  std::copy(v.sizes(), v.sizes() + v.ndim(), sizes.begin());
  sizes[0] = e - b;
  return sdk::TensorView<T>(v.data() + b * v.stride(0), v.ndim(), sizes.data(), v.strides());
}
template <typename T>
bool dense(const sdk::TensorView<T>& v) {
  return v.is_contiguous();
}
}  // namespace detail

// out[i] = f(in[i]...) for views of one shape (inputs already broadcast by the
// host), in parallel. Contiguous operands take a flat loop compilers
// vectorize; others are split along dim 0 and iterated row by row.
template <typename F, typename Out, typename... In>
void map(F f, const sdk::TensorView<Out>& out, const sdk::TensorView<In>&... in) {
  int64_t n = out.numel();
  if (n == 0) return;
  if (detail::dense(out) && (detail::dense(in) && ...)) {
    Out* o = out.data();
    std::tuple<In*...> p{in.data()...};
    parallel_for(n, 1, [&](int64_t b, int64_t e) {
      std::apply(
          [&](auto*... ptr) {
            for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(ptr[i]...));
          },
          p);
    });
    return;
  }
  if (out.ndim() == 0) {
    sdk::elementwise(out, in..., f);
    return;
  }
  parallel_for(out.size(0), n / out.size(0), [&](int64_t b, int64_t e) {
    std::array<int64_t, sdk::kMaxIterDims> so;
    auto sizes_for = [&](const auto&) { return std::array<int64_t, sdk::kMaxIterDims>{}; };
    std::tuple<decltype(sizes_for(in))...> si;
    std::apply(
        [&](auto&... s) {
          sdk::elementwise(detail::rows(out, b, e, so), detail::rows(in, b, e, s)..., f);
        },
        si);
  });
}

}  // namespace plexus::cpu
