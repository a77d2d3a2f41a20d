// Random ops: uniform_, normal_, bernoulli_.float. Element i of self, in
// row-major order of its sizes, takes the Philox words of (seed, offset + i)
// (Note [random streams] in plexus/sdk/philox.hpp): any number of threads and
// any layout give the host composite's stream exactly.
#include <cmath>

#include "elementwise.h"
#include "kernels.h"
#include "plexus/sdk/philox.hpp"

namespace plexus::cpu {
namespace {

// self[i] = value_of(words of element i), over pieces of [0, numel) in
// parallel; a strided self finds each element's offset from its index.
template <typename T, typename F>
void fill_random(const sdk::Args& args, uint64_t seed, uint64_t offset, F value_of) {
  sdk::TensorView<elem_t<T>> out = output<T>(args, 0);
  const int64_t n = out.numel();
  const bool dense = out.is_contiguous();
  parallel_for(n, 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t at = i;
      if (!dense) {
        at = 0;
        for (int64_t d = out.ndim() - 1, rest = i; d >= 0; --d) {
          at += rest % out.size(d) * out.stride(d);
          rest /= out.size(d);
        }
      }
      out.data()[at] = elem_t<T>(value_of(sdk::random_words(seed, offset, uint64_t(i))));
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

// uniform_(self, from, to, *, seed, offset)
void uniform_kernel(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const double from = args.floating(1), to = args.floating(2);
  const Stream s = stream_of(args, 3);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double>) {
      fill_random<T>(args, s.seed, s.offset, [=](const sdk::PhiloxWords& r) {
        return from + sdk::uniform_double(r) * (to - from);
      });
    } else {
      const auto f = float(from), span = float(to - from);
      fill_random<T>(args, s.seed, s.offset,
                     [=](const sdk::PhiloxWords& r) { return f + sdk::uniform_float(r) * span; });
    }
  });
}

// normal_(self, mean, std, *, seed, offset): Box-Muller.
void normal_kernel(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const double mean = args.floating(1), std = args.floating(2);
  const Stream s = stream_of(args, 3);
  constexpr double kTwoPi = 6.283185307179586;
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double>) {
      fill_random<T>(args, s.seed, s.offset, [=](const sdk::PhiloxWords& r) {
        return mean + std * (std::sqrt(-2.0 * std::log(sdk::normal_u1_double(r))) *
                             std::cos(kTwoPi * sdk::normal_u2_double(r)));
      });
    } else {
      const auto m = float(mean), sd = float(std);
      fill_random<T>(args, s.seed, s.offset, [=](const sdk::PhiloxWords& r) {
        return m + sd * (std::sqrt(-2.0f * std::log(sdk::normal_u1_float(r))) *
                         std::cos(float(kTwoPi) * sdk::normal_u2_float(r)));
      });
    }
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
  b.register_kernel<&uniform_kernel>("uniform_", sdk::kFloatingDTypes);
  b.register_kernel<&normal_kernel>("normal_", sdk::kFloatingDTypes);
  b.register_kernel<&bernoulli_kernel>("bernoulli_.float", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
