// Fused optimizer steps: adam_step_ (and its AMSGrad overloads) and
// sgd_step_ (and their list overloads), one pass over each parameter
// (shaders/optim.comp). The host hands
// contiguous float32 tensors with a 0-d step and lr on the device (the
// contract in dispatcher/src/catalog/optim.cpp). Adam's step count moves in a
// second dispatch, after the update has read it (every command on a stream is
// preceded by a full barrier: stream.h). The bias corrections come from
// log(beta) computed here in double.
#include <cmath>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

enum OptimOp { kAdam = 0, kIncrement = 1, kSgd = 2 };

// Mirrors `Push` in shaders/optim.comp.
struct OptimPush {
  uint64_t meta = 0;
  uint64_t p = 0, g = 0, m = 0, v = 0, step = 0, lr = 0;
  uint32_t n = 0;
  float beta1 = 0, beta2 = 0, w1 = 0, w2 = 0, eps = 0, wd = 0;
  float log_beta1 = 0, log_beta2 = 0;
  int32_t flags = 0;
  uint64_t vmax = 0;
};
static_assert(sizeof(OptimPush) == 104);

uint32_t groups_for(int64_t n) {
  int64_t g = (n + 255) / 256;
  return uint32_t(g < 1 ? 1 : (g > 1024 ? 1024 : g));
}

void adam_one(Device& dev, const plexus_kernel_call& call, const sdk::Args& a,
              const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor& m,
              const plexus_tensor& v, const plexus_tensor& step, const plexus_tensor& lr,
              const plexus_tensor* vmax = nullptr) {
  OptimPush push;
  push.vmax = vmax ? address_of(*vmax) : 0;
  push.p = address_of(p), push.g = address_of(g), push.m = address_of(m);
  push.v = address_of(v), push.step = address_of(step), push.lr = address_of(lr);
  push.n = uint32_t(numel(p));
  const double b1 = a.floating(6), b2 = a.floating(7);
  push.beta1 = float(b1), push.beta2 = float(b2), push.w1 = float(1 - b1), push.w2 = float(1 - b2);
  push.log_beta1 = float(std::log(b1)), push.log_beta2 = float(std::log(b2));
  push.eps = float(a.floating(8)), push.wd = float(a.floating(9));
  push.flags = a.boolean(10) ? 1 : 0;
  if (push.n > 0)
    dev.dispatch(call.stream, "optim", {kAdam}, &push, sizeof push, nullptr, 0, groups_for(push.n));
  dev.dispatch(call.stream, "optim", {kIncrement}, &push, sizeof push, nullptr, 0, 1);
}

// adam_step_(self, grad, exp_avg, exp_avg_sq, step, lr, *, beta1, beta2, eps, weight_decay,
// decoupled), and adam_step_.amsgrad (the same, then max_exp_avg_sq).
template <bool Amsgrad>
void adam_step(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  adam_one(b.device(call.device_index), call, a, a.tensor(0), a.tensor(1), a.tensor(2),
           a.tensor(3), a.tensor(4), a.tensor(5), Amsgrad ? &a.tensor(11) : nullptr);
}

// adam_step_.list and .amsgrad_list
template <bool Amsgrad>
void adam_step_list(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  auto p = a.tensor_list(0), g = a.tensor_list(1), m = a.tensor_list(2);
  auto v = a.tensor_list(3), st = a.tensor_list(4);
  for (int64_t k = 0; k < p.size(); ++k)
    adam_one(b.device(call.device_index), call, a, p[k], g[k], m[k], v[k], st[k], a.tensor(5),
             Amsgrad ? &a.tensor_list(11)[k] : nullptr);
}

void sgd_one(Device& dev, const plexus_kernel_call& call, const sdk::Args& a,
             const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor* buf,
             const plexus_tensor& lr) {
  OptimPush push;
  const double momentum = a.floating(4);
  push.p = address_of(p), push.g = address_of(g), push.lr = address_of(lr);
  push.m = momentum != 0 && buf ? address_of(*buf) : 0;
  push.n = uint32_t(numel(p));
  push.beta1 = float(momentum), push.w1 = float(1 - a.floating(5)), push.wd = float(a.floating(6));
  push.flags = (a.boolean(7) ? 1 : 0) | (a.boolean(8) ? 2 : 0);
  if (push.n > 0)
    dev.dispatch(call.stream, "optim", {kSgd}, &push, sizeof push, nullptr, 0, groups_for(push.n));
}

// sgd_step_(self, grad, momentum_buffer?, lr, *, momentum, dampening, weight_decay, nesterov, first_step)
void sgd_step(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  sgd_one(b.device(call.device_index), call, a, a.tensor(0), a.tensor(1), a.optional_tensor(2),
          a.tensor(3));
}

void sgd_step_list(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  auto p = a.tensor_list(0), g = a.tensor_list(1), buf = a.tensor_list(2);
  for (int64_t k = 0; k < p.size(); ++k)
    sgd_one(b.device(call.device_index), call, a, p[k], g[k], buf.empty() ? nullptr : &buf[k],
            a.tensor(3));
}

}  // namespace

void register_optim(VulkanBackend& b) {
  const uint32_t f32_only = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
  b.register_kernel<&adam_step<false>>("adam_step_", f32_only);
  b.register_kernel<&adam_step_list<false>>("adam_step_.list", f32_only);
  b.register_kernel<&adam_step<true>>("adam_step_.amsgrad", f32_only);
  b.register_kernel<&adam_step_list<true>>("adam_step_.amsgrad_list", f32_only);
  b.register_kernel<&sgd_step>("sgd_step_", f32_only);
  b.register_kernel<&sgd_step_list>("sgd_step_.list", f32_only);
}

}  // namespace plexus::vulkan
