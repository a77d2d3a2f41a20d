// Random ops: uniform_, normal_, bernoulli_.float (shaders/random.comp), the
// stream of plexus/sdk/philox.hpp: the cpu plugin's values, drawn on the device.
#include <cstring>

#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/philox.hpp"

namespace plexus::vulkan {
namespace {

enum RandomOp { kUniform, kNormal, kBernoulli };

uint64_t double_bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// self, then the op's parameters, then seed and offset at `seed_at`.
void run(VulkanBackend& b, const plexus_kernel_call& call, int op, double p0, double p1,
         uint32_t threshold, int64_t seed_at) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  ElementwisePush push;
  push.s0 = uint64_t(args.integer(seed_at));
  push.s1 = uint64_t(args.integer(seed_at + 1));
  // t[1..3] carry the parameters: launch_elementwise fills only t[0] here.
  push.t[1] = double_bits(p0);
  push.t[2] = double_bits(p1);
  push.t[3] = threshold;
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("random", call.dtype).c_str(), {op}, {&self}, push);
}

// uniform_(self, from, to, *, seed, offset)
void uniform_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const double from = args.floating(1), to = args.floating(2);
  run(b, call, kUniform, from, to - from, 0, 3);
}

// normal_(self, mean, std, *, seed, offset)
void normal_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(b, call, kNormal, args.floating(1), args.floating(2), 0, 3);
}

// bernoulli_.float(self, p, *, seed, offset)
void bernoulli_(VulkanBackend& b, const plexus_kernel_call& call) {
  run(b, call, kBernoulli, 0, 0, sdk::bernoulli_threshold(sdk::Args(call).floating(1)), 2);
}

}  // namespace

void register_random(VulkanBackend& b) {
  b.register_kernel<&uniform_>("uniform_", sdk::kFloatingDTypes);
  b.register_kernel<&normal_>("normal_", sdk::kFloatingDTypes);
  b.register_kernel<&bernoulli_>("bernoulli_.float", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
