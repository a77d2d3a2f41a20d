// Fused optimizer steps: adam_step_ and sgd_step_ (and their .list overloads),
// one pass over each parameter's memory. The host hands contiguous tensors of
// one dtype with a 0-d float32 step and a 0-d lr of that dtype (the contract in
// dispatcher/src/catalog/optim.cpp). The formulas and the order of their
// roundings follow the composite (catalog/optim_steps.cpp).
#include <cmath>

#include "elementwise.h"
#include "kernels.h"
#include "parallel.h"

namespace plexus::cpu {
namespace {

template <typename T>
T* data_of(const plexus_tensor& t) {
  return static_cast<T*>(t.storage) + t.offset;
}
int64_t numel_of(const plexus_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

struct AdamScalars {
  double beta1, beta2, eps, weight_decay;
  bool decoupled;
};

// One parameter: step += 1, then the update of p, m and v.
template <typename T>
void adam_one(const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor& m,
              const plexus_tensor& v, const plexus_tensor& step, T lr, const AdamScalars& s) {
  float* st = data_of<float>(step);
  *st += 1.0f;
  const T t = static_cast<T>(*st);
  const T bc1 = T(1) - std::pow(static_cast<T>(s.beta1), t);
  const T bc2_sqrt = std::sqrt(T(1) - std::pow(static_cast<T>(s.beta2), t));
  const T step_size = lr / bc1;
  const T w1 = static_cast<T>(1 - s.beta1), b2 = static_cast<T>(s.beta2);
  const T w2 = static_cast<T>(1 - s.beta2), eps = static_cast<T>(s.eps);
  const T wd = static_cast<T>(s.weight_decay);
  const T decay = T(1) - lr * wd;
  const bool decoupled = s.decoupled && s.weight_decay != 0;
  const bool coupled = !s.decoupled && s.weight_decay != 0;
  T* __restrict pp = data_of<T>(p);
  const T* __restrict gp = data_of<T>(g);
  T* __restrict mp = data_of<T>(m);
  T* __restrict vp = data_of<T>(v);
  parallel_for(numel_of(p), 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T x = pp[i], gi = gp[i];
      if (decoupled) x = x * decay;
      if (coupled) gi = gi + wd * x;
      const T mi = mp[i] + w1 * (gi - mp[i]);  // lerp with a weight below 0.5
      const T vi = vp[i] * b2 + w2 * gi * gi;
      mp[i] = mi;
      vp[i] = vi;
      const T denom = std::sqrt(vi) / bc2_sqrt + eps;
      pp[i] = x - (mi / denom) * step_size;
    }
  });
}

AdamScalars adam_scalars(const sdk::Args& a) {
  return {a.floating(6), a.floating(7), a.floating(8), a.floating(9), a.boolean(10)};
}

// adam_step_(self, grad, exp_avg, exp_avg_sq, step, lr, *, beta1, beta2, eps, weight_decay, decoupled)
void adam_step(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        adam_one<T>(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.tensor(4),
                    *data_of<T>(a.tensor(5)), adam_scalars(a));
      });
}

// adam_step_.list: the same for every parameter of the lists.
void adam_step_list(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T lr = *data_of<T>(a.tensor(5));
        const AdamScalars s = adam_scalars(a);
        auto p = a.tensor_list(0), g = a.tensor_list(1), m = a.tensor_list(2);
        auto v = a.tensor_list(3), st = a.tensor_list(4);
        for (int64_t k = 0; k < p.size(); ++k) adam_one<T>(p[k], g[k], m[k], v[k], st[k], lr, s);
      });
}

struct SgdScalars {
  double momentum, dampening, weight_decay;
  bool nesterov, first_step;
};

template <typename T>
void sgd_one(const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor* buf, T lr,
             const SgdScalars& s) {
  const T wd = static_cast<T>(s.weight_decay), mom = static_cast<T>(s.momentum);
  const T damp = static_cast<T>(1 - s.dampening);
  const bool use_buf = s.momentum != 0 && buf;
  T* __restrict pp = data_of<T>(p);
  const T* __restrict gp = data_of<T>(g);
  T* __restrict bp = use_buf ? data_of<T>(*buf) : nullptr;
  parallel_for(numel_of(p), 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T gi = gp[i];
      if (s.weight_decay != 0) gi = gi + wd * pp[i];
      if (use_buf) {
        const T bi = s.first_step ? gi : bp[i] * mom + damp * gi;
        bp[i] = bi;
        gi = s.nesterov ? gi + mom * bi : bi;
      }
      pp[i] = pp[i] - gi * lr;
    }
  });
}

SgdScalars sgd_scalars(const sdk::Args& a) {
  return {a.floating(4), a.floating(5), a.floating(6), a.boolean(7), a.boolean(8)};
}

// sgd_step_(self, grad, momentum_buffer?, lr, *, momentum, dampening, weight_decay, nesterov, first_step)
void sgd_step(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        sgd_one<T>(a.tensor(0), a.tensor(1), a.optional_tensor(2), *data_of<T>(a.tensor(3)),
                   sgd_scalars(a));
      });
}

void sgd_step_list(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T lr = *data_of<T>(a.tensor(3));
        const SgdScalars s = sgd_scalars(a);
        auto p = a.tensor_list(0), g = a.tensor_list(1), buf = a.tensor_list(2);
        for (int64_t k = 0; k < p.size(); ++k)
          sgd_one<T>(p[k], g[k], buf.empty() ? nullptr : &buf[k], lr, s);
      });
}

}  // namespace

void register_optim(CpuBackend& b) {
  constexpr uint32_t kTypes = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);
  b.register_kernel<&adam_step>("adam_step_", kTypes);
  b.register_kernel<&adam_step_list>("adam_step_.list", kTypes);
  b.register_kernel<&sgd_step>("sgd_step_", kTypes);
  b.register_kernel<&sgd_step_list>("sgd_step_.list", kTypes);
}

}  // namespace plexus::cpu
