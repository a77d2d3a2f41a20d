#include "plexus/random.h"

#include <map>
#include <mutex>
#include <numeric>

#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/sdk/philox.hpp"

namespace plexus {
namespace {

struct DefaultGenerators {
  std::mutex mu;
  std::map<std::pair<int, int64_t>, Generator> by_device;
  uint64_t seed = 0;
};

DefaultGenerators& defaults() {
  static DefaultGenerators* d = new DefaultGenerators;  // outlives static destructors
  return *d;
}

}  // namespace

namespace detail {
GeneratorAdvanceHook g_generator_advance_hook = nullptr;
}  // namespace detail

uint64_t Generator::next_u64() {
  sdk::PhiloxWords r = sdk::random_words(seed_, advance(1), 0);
  return (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
}

Generator& default_generator(Device device) {
  DefaultGenerators& d = defaults();
  std::lock_guard<std::mutex> lock(d.mu);
  auto key = std::make_pair(static_cast<int>(device.type), static_cast<int64_t>(device.index));
  auto it = d.by_device.find(key);
  if (it == d.by_device.end()) it = d.by_device.emplace(key, Generator(d.seed)).first;
  return it->second;  // std::map never moves its elements
}

void manual_seed(uint64_t seed) {
  DefaultGenerators& d = defaults();
  std::lock_guard<std::mutex> lock(d.mu);
  d.seed = seed;
  for (auto& [device, gen] : d.by_device) gen.manual_seed(seed);
}

const Tensor& uniform_(const Tensor& self, double from, double to, Generator& gen) {
  return uniform_(self, from, to, gen.seed(), gen.advance(static_cast<uint64_t>(self.numel())));
}

const Tensor& normal_(const Tensor& self, double mean, double std, Generator& gen) {
  return normal_(self, mean, std, gen.seed(), gen.advance(static_cast<uint64_t>(self.numel())));
}

const Tensor& bernoulli_(const Tensor& self, double p, Generator& gen) {
  return bernoulli_(self, p, gen.seed(), gen.advance(static_cast<uint64_t>(self.numel())));
}

Tensor rand(IntArrayRef sizes, Generator& gen, TensorOptions options, double lo, double hi) {
  PLEXUS_CHECK(is_floating(options.dtype), ErrorCode::InvalidArgument,
               "rand: random tensors are floating, got {}", dtype_name(options.dtype));
  PLEXUS_CHECK(lo < hi, ErrorCode::InvalidArgument, "rand: lo {} must be below hi {}", lo, hi);
  Tensor t = empty(sizes, options);
  uniform_(t, lo, hi, gen);
  return t;
}

Tensor randn(IntArrayRef sizes, Generator& gen, TensorOptions options, double mean,
             double stddev) {
  PLEXUS_CHECK(is_floating(options.dtype), ErrorCode::InvalidArgument,
               "randn: random tensors are floating, got {}", dtype_name(options.dtype));
  PLEXUS_CHECK(stddev >= 0, ErrorCode::InvalidArgument, "randn: negative stddev {}", stddev);
  Tensor t = empty(sizes, options);
  normal_(t, mean, stddev, gen);
  return t;
}

std::vector<int64_t> randperm(int64_t n, Generator& gen) {
  PLEXUS_CHECK(n >= 0, ErrorCode::InvalidArgument, "randperm: negative n {}", n);
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  if (n < 2) return p;
  const uint64_t seed = gen.seed(), offset = gen.advance(static_cast<uint64_t>(n - 1));
  // Position k of the stream picks the partner of element n - 1 - k, uniformly
  // among 0 .. n-1-k from 64 bits (the modulo's bias is below 2^-32 for any
  // n a vector holds).
  for (int64_t k = 0; k < n - 1; ++k) {
    const int64_t i = n - 1 - k;
    sdk::PhiloxWords r = sdk::random_words(seed, offset, static_cast<uint64_t>(k));
    const uint64_t bits = (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
    std::swap(p[static_cast<size_t>(i)],
              p[static_cast<size_t>(bits % static_cast<uint64_t>(i + 1))]);
  }
  return p;
}

}  // namespace plexus
