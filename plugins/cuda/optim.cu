// Fused optimizer steps: adam_step_ (and its AMSGrad overloads) and sgd_step_
// (and their list overloads), one pass over each parameter's memory in float32. The host hands
// contiguous tensors with a 0-d float32 step and a 0-d float32 lr on the device
// (the contract in dispatcher/src/catalog/optim.cpp); the formulas and the
// order of their roundings follow the composite (catalog/optim_steps.cpp).
// Every thread reads the step count before it moves: a second launch on the
// same stream adds one to it after the update.
#include <cmath>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

struct AdamArgs {
  float* p;
  const float* g;
  float* m;
  float* v;
  float* vmax;  // AMSGrad's running maximum of v; null without AMSGrad
  const float* step;
  const float* lr;
  int64_t n;
  float log_beta1, log_beta2;  // log(beta), from the host in double
  float beta2, w1, w2, eps, wd;
  bool decoupled;
};

__global__ void adam_kernel(AdamArgs a) {
  // 1 - beta^t as -expm1(t log(beta)): pow's error would grow a thousandfold
  // in 1 - pow(0.999, t).
  const float t = *a.step + 1.0f, lr = *a.lr;
  const float bc1 = -expm1f(t * a.log_beta1);
  const float bc2_sqrt = sqrtf(-expm1f(t * a.log_beta2));
  const float step_size = lr / bc1, decay = 1.0f - lr * a.wd;
  int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    float x = a.p[i], g = a.g[i];
    if (a.wd != 0.0f) {
      if (a.decoupled) x = x * decay;
      else g = g + a.wd * x;
    }
    const float m = a.m[i] + a.w1 * (g - a.m[i]);
    const float v = a.v[i] * a.beta2 + a.w2 * g * g;
    a.m[i] = m;
    a.v[i] = v;
    float second = v;
    if (a.vmax) {  // maximum(vmax, v): a NaN wins, as in the composite
      const float old = a.vmax[i];
      second = v > old || isnan(v) ? v : old;
      a.vmax[i] = second;
    }
    const float denom = sqrtf(second) / bc2_sqrt + a.eps;
    a.p[i] = x - (m / denom) * step_size;
  }
}

__global__ void increment_kernel(float* step) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *step = *step + 1.0f;
}

float* f32(const plexus_tensor& t) { return static_cast<float*>(t.storage) + t.offset; }
int64_t numel(const plexus_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

void adam_one(const plexus_kernel_call& call, const sdk::Args& s, const plexus_tensor& p,
              const plexus_tensor& g, const plexus_tensor& m, const plexus_tensor& v,
              const plexus_tensor& step, const plexus_tensor& lr,
              const plexus_tensor* vmax = nullptr) {
  const double b1 = s.floating(6), b2 = s.floating(7);
  float* max_sq = vmax ? f32(*vmax) : nullptr;
  AdamArgs a{f32(p), f32(g), f32(m), f32(v), max_sq, f32(step), f32(lr), numel(p),
             float(std::log(b1)), float(std::log(b2)), float(b2), float(1 - b1), float(1 - b2),
             float(s.floating(8)), float(s.floating(9)), s.boolean(10)};
  if (a.n > 0) {
    PLEXUS_LAUNCH(adam_kernel, blocks_for(a.n), kBlockThreads, 0, stream_of(call), a);
    check_launch(call, "adam_kernel");
  }
  PLEXUS_LAUNCH(increment_kernel, 1, 1, 0, stream_of(call), f32(step));
  check_launch(call, "increment_kernel");
}

// adam_step_(self, grad, exp_avg, exp_avg_sq, step, lr, *, beta1, beta2, eps, weight_decay,
// decoupled), and adam_step_.amsgrad (the same, then max_exp_avg_sq).
template <bool Amsgrad>
void adam_step(const plexus_kernel_call& call) {
  sdk::Args a(call);
  adam_one(call, a, a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.tensor(4), a.tensor(5),
           Amsgrad ? &a.tensor(11) : nullptr);
}

// adam_step_.list and .amsgrad_list
template <bool Amsgrad>
void adam_step_list(const plexus_kernel_call& call) {
  sdk::Args a(call);
  auto p = a.tensor_list(0), g = a.tensor_list(1), m = a.tensor_list(2);
  auto v = a.tensor_list(3), st = a.tensor_list(4);
  for (int64_t k = 0; k < p.size(); ++k)
    adam_one(call, a, p[k], g[k], m[k], v[k], st[k], a.tensor(5),
             Amsgrad ? &a.tensor_list(11)[k] : nullptr);
}

struct SgdArgs {
  float* p;
  const float* g;
  float* buf;  // null without momentum
  const float* lr;
  int64_t n;
  float momentum, damp, wd;
  bool nesterov, first_step;
};

__global__ void sgd_kernel(SgdArgs a) {
  const float lr = *a.lr;
  int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    float g = a.g[i];
    if (a.wd != 0.0f) g = g + a.wd * a.p[i];
    if (a.buf) {
      const float b = a.first_step ? g : a.buf[i] * a.momentum + a.damp * g;
      a.buf[i] = b;
      g = a.nesterov ? g + a.momentum * b : b;
    }
    a.p[i] = a.p[i] - g * lr;
  }
}

void sgd_one(const plexus_kernel_call& call, const sdk::Args& s, const plexus_tensor& p,
             const plexus_tensor& g, const plexus_tensor* buf, const plexus_tensor& lr) {
  const double momentum = s.floating(4);
  SgdArgs a{f32(p), f32(g), momentum != 0 && buf ? f32(*buf) : nullptr, f32(lr), numel(p),
            float(momentum), float(1 - s.floating(5)), float(s.floating(6)), s.boolean(7),
            s.boolean(8)};
  if (a.n == 0) return;
  PLEXUS_LAUNCH(sgd_kernel, blocks_for(a.n), kBlockThreads, 0, stream_of(call), a);
  check_launch(call, "sgd_kernel");
}

// sgd_step_(self, grad, momentum_buffer?, lr, *, momentum, dampening, weight_decay, nesterov, first_step)
void sgd_step(const plexus_kernel_call& call) {
  sdk::Args a(call);
  sgd_one(call, a, a.tensor(0), a.tensor(1), a.optional_tensor(2), a.tensor(3));
}

void sgd_step_list(const plexus_kernel_call& call) {
  sdk::Args a(call);
  auto p = a.tensor_list(0), g = a.tensor_list(1), b = a.tensor_list(2);
  for (int64_t k = 0; k < p.size(); ++k)
    sgd_one(call, a, p[k], g[k], b.empty() ? nullptr : &b[k], a.tensor(3));
}

}  // namespace

void register_optim(GpuBackend& b) {
  const uint32_t f32_only = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
  b.register_kernel<&adam_step<false>>("adam_step_", f32_only);
  b.register_kernel<&adam_step_list<false>>("adam_step_.list", f32_only);
  b.register_kernel<&adam_step<true>>("adam_step_.amsgrad", f32_only);
  b.register_kernel<&adam_step_list<true>>("adam_step_.amsgrad_list", f32_only);
  b.register_kernel<&sgd_step>("sgd_step_", f32_only);
  b.register_kernel<&sgd_step_list>("sgd_step_.list", f32_only);
}

}  // namespace plexus::gpu
