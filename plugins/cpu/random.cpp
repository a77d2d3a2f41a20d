// Random ops: uniform_, normal_, bernoulli_.float. Element i of self, in
// row-major order of its sizes, takes the Philox words of (seed, offset + i)
// (Note [random streams] in plexus/sdk/philox.hpp): any number of threads and
// any layout give the host composite's stream exactly.
#include <type_traits>

#include "elementwise.h"
#include "kernels.h"
#include "plexus/sdk/philox.hpp"

namespace plexus::cpu {
namespace {

// self[i] = value_of(words of element i), over pieces of [0, numel) in
// parallel; a strided self finds each element by its row-major position.
template <typename T, typename F>
void fill_random(const sdk::Args& args, uint64_t seed, uint64_t offset, F value_of) {
  sdk::TensorView<elem_t<T>> out = output<T>(args, 0);
  const bool dense = out.is_contiguous();
  parallel_for(out.numel(), 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const auto v = elem_t<T>(value_of(sdk::random_words(seed, offset, uint64_t(i))));
      if (dense)
        out.data()[i] = v;
      else
        out[i] = v;
    }
  });
}

// seed and offset: the two int arguments after the op's parameters.
struct Stream {
  uint64_t seed, offset;
};
Stream stream_of(const sdk::Args& args, int64_t seed_at) {
  return {uint64_t(args.integer(seed_at)), uint64_t(args.integer(seed_at + 1))};
}

// uniform_(self, from, to, *, seed, offset) and normal_(self, mean, std, *,
// seed, offset): plexus/sdk/philox.hpp's values in float, or double for float64.
template <bool Normal>
void fill_kernel(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const double p0 = args.floating(1), p1 = args.floating(2);
  const Stream s = stream_of(args, 3);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const C a = C(p0), b = C(Normal ? p1 : p1 - p0);
    fill_random<T>(args, s.seed, s.offset, [=](const sdk::PhiloxWords& r) {
      return Normal ? sdk::normal_value<C>(r, a, b) : sdk::uniform_value<C>(r, a, b);
    });
  });
}

// bernoulli_.float(self, p, *, seed, offset): 1 or 0 in self's dtype.
void bernoulli_kernel(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const uint32_t threshold = sdk::bernoulli_threshold(args.floating(1));
  const Stream s = stream_of(args, 2);
  sdk::visit_dtype(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_random<T>(args, s.seed, s.offset, [=](const sdk::PhiloxWords& r) {
      return compute_t<T>(sdk::bernoulli_draw(r, threshold) ? 1 : 0);
    });
  });
}

}  // namespace

void register_random(CpuBackend& b) {
  b.register_kernel<&fill_kernel<false>>("uniform_", sdk::kFloatingDTypes);
  b.register_kernel<&fill_kernel<true>>("normal_", sdk::kFloatingDTypes);
  b.register_kernel<&bernoulli_kernel>("bernoulli_.float", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
