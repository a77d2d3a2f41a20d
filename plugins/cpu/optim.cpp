// Fused optimizer steps: adam_step_ (and .amsgrad) and sgd_step_ (and their list overloads),
// one pass over each parameter's memory. The host hands contiguous tensors of
// one dtype with a 0-d float32 step and a 0-d lr of that dtype (the contract in
// dispatcher/src/catalog/optim.cpp). The formulas and the order of their
// roundings follow the composite (catalog/optim_steps.cpp), but for the bias
// corrections, computed once per parameter in double.
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

// The numbers one Adam update of a parameter uses, in its dtype.
template <typename T>
struct AdamCoeffs {
  T w1, b2, w2, eps, wd, decay, bc2_sqrt, step_size;
  bool decoupled, coupled;  // AdamW's decay, or L2 weight decay added to the gradient
};

// Elements [b, e) of one parameter. Its own function, never inlined: the
// pointers' __restrict then holds and the loop vectorizes. Inlined into its
// caller (GCC 12 did so on the single-thread path of parallel_for), the
// restrict qualifiers were lost and the loop ran scalar, 5 to 10 times
// slower (bench/README.md, plexus-bench-optim). AMSGrad (vmax not null) takes the
// denominator from the running maximum of v, which a NaN joins as maximum()
// makes it (the composite's rule).
template <typename T, bool Amsgrad>
[[gnu::noinline]] void adam_range(T* __restrict p, const T* __restrict g, T* __restrict m,
                                  T* __restrict v, T* __restrict vmax, int64_t b, int64_t e,
                                  const AdamCoeffs<T> c) {
  for (int64_t i = b; i < e; ++i) {
    T x = p[i], gi = g[i];
    if (c.decoupled) x = x * c.decay;
    if (c.coupled) gi = gi + c.wd * x;
    const T mi = m[i] + c.w1 * (gi - m[i]);  // lerp with a weight below 0.5
    const T vi = v[i] * c.b2 + c.w2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    T second = vi;
    if constexpr (Amsgrad) {
      const T old = vmax[i];
      second = vi > old || std::isnan(vi) ? vi : old;
      vmax[i] = second;
    }
    const T denom = std::sqrt(second) / c.bc2_sqrt + c.eps;
    p[i] = x - (mi / denom) * c.step_size;
  }
}

// One parameter: step += 1, then the update of p, m and v. The bias
// corrections are computed in double and rounded once, as PyTorch's default
// Adam computes them on the host.
template <typename T>
void adam_one(const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor& m,
              const plexus_tensor& v, const plexus_tensor& step, T lr, const AdamScalars& s,
              const plexus_tensor* vmax = nullptr) {
  float* st = data_of<float>(step);
  *st += 1.0f;
  const double t = *st;
  AdamCoeffs<T> c;
  c.w1 = static_cast<T>(1 - s.beta1);
  c.b2 = static_cast<T>(s.beta2);
  c.w2 = static_cast<T>(1 - s.beta2);
  c.eps = static_cast<T>(s.eps);
  c.wd = static_cast<T>(s.weight_decay);
  c.decay = static_cast<T>(1 - static_cast<double>(lr) * s.weight_decay);
  c.bc2_sqrt = static_cast<T>(std::sqrt(1 - std::pow(s.beta2, t)));
  c.step_size = static_cast<T>(static_cast<double>(lr) / (1 - std::pow(s.beta1, t)));
  c.decoupled = s.decoupled && s.weight_decay != 0;
  c.coupled = !s.decoupled && s.weight_decay != 0;
  T* pp = data_of<T>(p);
  const T* gp = data_of<T>(g);
  T* mp = data_of<T>(m);
  T* vp = data_of<T>(v);
  if (vmax) {
    T* xp = data_of<T>(*vmax);
    parallel_for(numel_of(p), 16,
                 [&](int64_t b, int64_t e) { adam_range<T, true>(pp, gp, mp, vp, xp, b, e, c); });
  } else {
    parallel_for(numel_of(p), 16, [&](int64_t b, int64_t e) {
      adam_range<T, false>(pp, gp, mp, vp, nullptr, b, e, c);
    });
  }
}

AdamScalars adam_scalars(const sdk::Args& a) {
  return {a.floating(6), a.floating(7), a.floating(8), a.floating(9), a.boolean(10)};
}

// adam_step_(self, grad, exp_avg, exp_avg_sq, step, lr, *, beta1, beta2, eps, weight_decay,
// decoupled), and adam_step_.amsgrad (the same, then max_exp_avg_sq).
template <bool Amsgrad>
void adam_step(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        adam_one<T>(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.tensor(4),
                    *data_of<T>(a.tensor(5)), adam_scalars(a), Amsgrad ? &a.tensor(11) : nullptr);
      });
}

// adam_step_.list and .amsgrad_list: the same for every parameter of the lists.
template <bool Amsgrad>
void adam_step_list(const plexus_kernel_call& call) {
  sdk::Args a(call);
  visit<PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)>(
      call.dtype, call.op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T lr = *data_of<T>(a.tensor(5));
        const AdamScalars s = adam_scalars(a);
        auto p = a.tensor_list(0), g = a.tensor_list(1), m = a.tensor_list(2);
        auto v = a.tensor_list(3), st = a.tensor_list(4);
        for (int64_t k = 0; k < p.size(); ++k)
          adam_one<T>(p[k], g[k], m[k], v[k], st[k], lr, s,
                      Amsgrad ? &a.tensor_list(11)[k] : nullptr);
      });
}

struct SgdScalars {
  double momentum, dampening, weight_decay;
  bool nesterov, first_step;
};

// Elements [b, e) of one parameter (buf: null without momentum); never
// inlined, for adam_range's reason.
template <typename T>
[[gnu::noinline]] void sgd_range(T* __restrict p, const T* __restrict g, T* __restrict buf,
                                 int64_t b, int64_t e, T lr, T wd, T mom, T damp,
                                 const SgdScalars& s) {
  for (int64_t i = b; i < e; ++i) {
    T gi = g[i];
    if (s.weight_decay != 0) gi = gi + wd * p[i];
    if (buf) {
      const T bi = s.first_step ? gi : buf[i] * mom + damp * gi;
      buf[i] = bi;
      gi = s.nesterov ? gi + mom * bi : bi;
    }
    p[i] = p[i] - gi * lr;
  }
}

template <typename T>
void sgd_one(const plexus_tensor& p, const plexus_tensor& g, const plexus_tensor* buf, T lr,
             const SgdScalars& s) {
  const T wd = static_cast<T>(s.weight_decay), mom = static_cast<T>(s.momentum);
  const T damp = static_cast<T>(1 - s.dampening);
  T* pp = data_of<T>(p);
  const T* gp = data_of<T>(g);
  T* bp = s.momentum != 0 && buf ? data_of<T>(*buf) : nullptr;
  parallel_for(numel_of(p), 8,
               [&](int64_t b, int64_t e) { sgd_range<T>(pp, gp, bp, b, e, lr, wd, mom, damp, s); });
}

SgdScalars sgd_scalars(const sdk::Args& a) {
  return {a.floating(4), a.floating(5), a.floating(6), a.boolean(7), a.boolean(8)};
}

// sgd_step_(self, grad, momentum_buffer?, lr, *, momentum, dampening, weight_decay, nesterov,
// first_step)
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
  constexpr uint32_t kTypes =
      PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);
  b.register_kernel<&adam_step<false>>("adam_step_", kTypes);
  b.register_kernel<&adam_step_list<false>>("adam_step_.list", kTypes);
  b.register_kernel<&adam_step<true>>("adam_step_.amsgrad", kTypes);
  b.register_kernel<&adam_step_list<true>>("adam_step_.amsgrad_list", kTypes);
  b.register_kernel<&sgd_step>("sgd_step_", kTypes);
  b.register_kernel<&sgd_step_list>("sgd_step_.list", kTypes);
}

}  // namespace plexus::cpu
