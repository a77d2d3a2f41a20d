// Random ops: uniform_, normal_ and bernoulli_.float fill self from a
// counter-based stream (plexus/sdk/philox.hpp, Note [random streams]): element
// i of self, in row-major order of its sizes, is a pure function of (seed,
// offset + i). The ops keep no state; a Generator (plexus/random.h) holds a
// seed and an offset per device and advances the offset by numel per call.
//
// What kernels receive: self of a dtype the op lists, any strides (not an
// expanded view: the dispatcher refuses in-place writes to elements that share
// memory); seed and offset as given (offset >= 0); the op's parameters checked
// (from <= to, std >= 0, p in [0, 1]). The composite draws the values on the
// host with the same functions and copies them to self, so every plugin gets
// the same stream with or without a kernel.
#include <cmath>

#include "catalog/catalog.h"
#include "plexus/factories.h"
#include "plexus/sdk/philox.hpp"

namespace plexus {
namespace {

// Positions: self, then the op's two (or one) parameters, then seed and offset.
constexpr size_t kSelf = 0;

OutputSpec random_meta(MetaContext& ctx, size_t seed_at) {
  const Tensor& self = ctx.tensor(kSelf);
  PLEXUS_CHECK_ARG(ctx.integer(seed_at + 1) >= 0, ctx.name(seed_at + 1), "must be >= 0, got {}",
                   ctx.integer(seed_at + 1));
  return {Shape(self.sizes().begin(), self.sizes().end()), self.dtype(), self.dtype()};
}

// uniform_(self, from, to, *, seed, offset)
OutputSpec uniform_meta(MetaContext& ctx) {
  PLEXUS_CHECK_ARG(is_floating(ctx.tensor(kSelf).dtype()), ctx.name(kSelf),
                   "must be floating, got {}", dtype_name(ctx.tensor(kSelf).dtype()));
  const double from = ctx.real(1), to = ctx.real(2);
  PLEXUS_CHECK_ARG(std::isfinite(from) && std::isfinite(to) && from <= to, ctx.name(2),
                   "expected finite from <= to, got from = {}, to = {}", from, to);
  return random_meta(ctx, 3);
}

// normal_(self, mean, std, *, seed, offset)
OutputSpec normal_meta(MetaContext& ctx) {
  PLEXUS_CHECK_ARG(is_floating(ctx.tensor(kSelf).dtype()), ctx.name(kSelf),
                   "must be floating, got {}", dtype_name(ctx.tensor(kSelf).dtype()));
  const double mean = ctx.real(1), std = ctx.real(2);
  PLEXUS_CHECK_ARG(std::isfinite(mean), ctx.name(1), "must be finite, got {}", mean);
  PLEXUS_CHECK_ARG(std::isfinite(std) && std >= 0, ctx.name(2), "must be finite and >= 0, got {}",
                   std);
  return random_meta(ctx, 3);
}

// bernoulli_.float(self, p, *, seed, offset)
OutputSpec bernoulli_meta(MetaContext& ctx) {
  const double p = ctx.real(1);
  PLEXUS_CHECK_ARG(p >= 0 && p <= 1, ctx.name(1), "must be a probability in [0, 1], got {}", p);
  return random_meta(ctx, 2);
}

// The host's values of one op, in self's shape (T: float, double or bool),
// then copied into self, which converts them to its dtype.
template <typename T, typename F>
void draw_on_host(KernelCall& call, size_t seed_at, F value_of) {
  const Tensor& self = call.args[kSelf].to_tensor();
  const auto seed = static_cast<uint64_t>(call.args[seed_at].to_int());
  const auto offset = static_cast<uint64_t>(call.args[seed_at + 1].to_int());
  Tensor host = empty(self.sizes(), TensorOptions(dtype_of<T>()));
  T* p = host.data<T>();
  for (int64_t i = 0; i < host.numel(); ++i)
    p[i] = static_cast<T>(value_of(sdk::random_words(seed, offset, static_cast<uint64_t>(i))));
  self.copy_(host);
}

// Float64 tensors draw in double; the others in float, rounded once to self's
// dtype (plexus/sdk/philox.hpp's uniform_value and normal_value).
template <typename C>
void fill_composite(KernelCall& call, bool normal) {
  const C a = static_cast<C>(call.args[1].to_double());
  const C b = static_cast<C>(normal ? call.args[2].to_double()
                                    : call.args[2].to_double() - call.args[1].to_double());
  draw_on_host<C>(call, 3, [=](const sdk::PhiloxWords& r) {
    return normal ? sdk::normal_value<C>(r, a, b) : sdk::uniform_value<C>(r, a, b);
  });
}

void uniform_composite(void*, KernelCall& call) {
  if (call.args[kSelf].to_tensor().dtype() == DType::F64)
    fill_composite<double>(call, false);
  else
    fill_composite<float>(call, false);
}

void normal_composite(void*, KernelCall& call) {
  if (call.args[kSelf].to_tensor().dtype() == DType::F64)
    fill_composite<double>(call, true);
  else
    fill_composite<float>(call, true);
}

void bernoulli_composite(void*, KernelCall& call) {
  const uint32_t threshold = sdk::bernoulli_threshold(call.args[1].to_double());
  draw_on_host<bool>(call, 2,
                     [=](const sdk::PhiloxWords& r) { return sdk::bernoulli_draw(r, threshold); });
}

}  // namespace

void define_random_ops(Dispatcher& d) {
  d.define({.inplace = "uniform_(Tensor(a!) self, float from=0, float to=1, *, int seed, "
                       "int offset) -> Tensor(a!)",
            .meta = uniform_meta,
            .composite = uniform_composite,
            .dtypes = kFloatTypes});
  d.define({.inplace = "normal_(Tensor(a!) self, float mean=0, float std=1, *, int seed, "
                       "int offset) -> Tensor(a!)",
            .meta = normal_meta,
            .composite = normal_composite,
            .dtypes = kFloatTypes});
  d.define({.inplace = "bernoulli_.float(Tensor(a!) self, float p=0.5, *, int seed, int offset) "
                       "-> Tensor(a!)",
            .meta = bernoulli_meta,
            .composite = bernoulli_composite,
            .dtypes = kAllTypes});
}

}  // namespace plexus
