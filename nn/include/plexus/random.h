// Seeded random tensors, drawn on their own device. A Generator is a seed and
// an offset into the counter-based stream of the random ops
// (plexus/ops_random.h, Note [random streams] in plexus/sdk/philox.hpp): a
// draw of n elements takes the stream's next n positions, so the same seed
// gives the same values on every run, on every device and for any layout.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "plexus/device.h"
#include "plexus/tensor.h"

namespace plexus {

class Generator;
namespace detail {
// Called by Generator::advance on the thread that draws, with the first
// position taken and how many; plexus::compile's capture sets it to carry
// random ops' offsets into a graph as positions relative to the call's first
// draw (graph/README.md). Null when unset.
using GeneratorAdvanceHook = void (*)(Generator& gen, uint64_t first, uint64_t n);
extern GeneratorAdvanceHook g_generator_advance_hook;
}  // namespace detail

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  Generator(const Generator& o) : seed_(o.seed_), offset_(o.offset_.load()) {}
  Generator& operator=(const Generator& o) {
    seed_ = o.seed_;
    offset_ = o.offset_.load();
    return *this;
  }
  // Restarts the stream of `seed`.
  void manual_seed(uint64_t seed) {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t seed() const { return seed_; }
  // How many stream positions have been drawn; set_offset replays from there.
  uint64_t offset() const { return offset_.load(); }
  void set_offset(uint64_t offset) { offset_ = offset; }
  // Takes the next n positions (thread-safe); returns the first.
  uint64_t advance(uint64_t n) {
    const uint64_t first = offset_.fetch_add(n);
    if (detail::g_generator_advance_hook) detail::g_generator_advance_hook(*this, first, n);
    return first;
  }
  // One 64-bit value from the stream (a seed for another Generator).
  uint64_t next_u64();

 private:
  uint64_t seed_;
  std::atomic<uint64_t> offset_{0};
};

// The default generator of a device: seed 0 until manual_seed.
Generator& default_generator(Device device = Device());
// Seeds every device's default generator (PyTorch's torch.manual_seed).
void manual_seed(uint64_t seed);

// Uniform in [lo, hi), on options.device.
Tensor rand(IntArrayRef sizes, Generator& gen, TensorOptions options = {}, double lo = 0,
            double hi = 1);
// Normal with this mean and standard deviation, on options.device.
Tensor randn(IntArrayRef sizes, Generator& gen, TensorOptions options = {}, double mean = 0,
             double stddev = 1);
// The generator forms of the random ops: each takes the next numel positions.
const Tensor& uniform_(const Tensor& self, double from, double to, Generator& gen);
const Tensor& normal_(const Tensor& self, double mean, double std, Generator& gen);
const Tensor& bernoulli_(const Tensor& self, double p, Generator& gen);
// A random permutation of 0 .. n-1 (Fisher-Yates on the host).
std::vector<int64_t> randperm(int64_t n, Generator& gen);

}  // namespace plexus
