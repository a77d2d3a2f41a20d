// gradcheck: analytical gradients against central differences on the cpu.
// Fast mode compares one random projection u^T J v per input; the full check
// compares every element of the Jacobian, and runs when a projection
// disagrees, so a failure always names the element that is wrong.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::autograd {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Tolerance {
  double eps, atol, rtol;
  double allowed(double numerical) const { return atol + rtol * std::abs(numerical); }
};

Tolerance tolerance(DType t, const GradcheckOptions& o) {
  const bool f64 = t == DType::F64;
  return {o.eps.value_or(f64 ? 1e-6 : 1e-3), o.atol.value_or(f64 ? 1e-5 : 1e-3),
          o.rtol.value_or(f64 ? 1e-3 : 1e-2)};
}

// Element k (row-major order) of a cpu float32 or float64 tensor, in place.
template <typename T>
T* address(const Tensor& t, int64_t k) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    off += (k % t.size(d)) * t.stride(d);
    k /= t.size(d);
  }
  return static_cast<T*>(t.storage()->data()) + t.storage_offset() + off;
}
double get(const Tensor& t, int64_t k) {
  return t.dtype() == DType::F64 ? *address<double>(t, k) : *address<float>(t, k);
}
void set(const Tensor& t, int64_t k, double v) {
  if (t.dtype() == DType::F64)
    *address<double>(t, k) = v;
  else
    *address<float>(t, k) = static_cast<float>(v);
}

std::vector<double> values_of(const Tensor& t) {
  return t.detach().to(DType::F64).cpu().tolist<double>();
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The inputs that require grad, and their positions in `inputs`.
struct Checked {
  std::vector<Tensor> tensors;
  std::vector<size_t> index;
};

Checked checked_inputs(const std::vector<Tensor>& inputs) {
  Checked c;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    PLEXUS_CHECK((x.dtype() == DType::F64 || x.dtype() == DType::F32) && x.device().is_cpu(),
                 ErrorCode::InvalidArgument,
                 "gradcheck: input {} is {}; checked inputs must be float64 or float32 tensors "
                 "on the cpu",
                 i, x.str());
    PLEXUS_CHECK(c.tensors.empty() || x.dtype() == c.tensors[0].dtype(),
                 ErrorCode::InvalidArgument,
                 "gradcheck: input {} is {} but input {} is {}; checked inputs must share a dtype",
                 i, dtype_name(x.dtype()), c.index[0], dtype_name(c.tensors[0].dtype()));
    c.tensors.push_back(x);
    c.index.push_back(i);
  }
  PLEXUS_CHECK(!c.tensors.empty(), ErrorCode::InvalidArgument,
               "gradcheck: no input requires grad");
  return c;
}

Tensor evaluate(const Fn& fn, const std::vector<Tensor>& inputs) {
  Tensor out = fn(inputs);
  PLEXUS_CHECK(out.defined() && is_floating(out.dtype()), ErrorCode::InvalidArgument,
               "gradcheck: the function returned {}, expected a floating tensor",
               out.defined() ? out.str() : "an undefined tensor");
  return out;
}

// (f(x + eps d) - f(x - eps d)) / 2 eps for input x, where d is `dir` over
// x's elements (a one-hot for one element); x is restored bit for bit.
std::vector<double> central_difference(const Fn& fn, const std::vector<Tensor>& inputs,
                                       const Tensor& x, const std::vector<double>& dir,
                                       double eps) {
  NoGradGuard no_grad;
  std::vector<double> saved(dir.size());
  for (size_t k = 0; k < dir.size(); ++k) saved[k] = get(x, static_cast<int64_t>(k));
  auto shift = [&](double sign) {
    for (size_t k = 0; k < dir.size(); ++k)
      if (dir[k] != 0) set(x, static_cast<int64_t>(k), saved[k] + sign * eps * dir[k]);
  };
  shift(1);
  std::vector<double> plus = values_of(fn(inputs));
  shift(-1);
  std::vector<double> minus = values_of(fn(inputs));
  for (size_t k = 0; k < dir.size(); ++k) set(x, static_cast<int64_t>(k), saved[k]);
  for (size_t j = 0; j < plus.size(); ++j) plus[j] = (plus[j] - minus[j]) / (2 * eps);
  return plus;
}

std::string node_name(const Tensor& out) {
  return out.grad_fn() ? out.grad_fn()->name() : "no grad_fn";
}

// Every element: row j of the Jacobian from a backward of the j-th one-hot,
// column k from the central difference of element k.
void full_check(const Fn& fn, const std::vector<Tensor>& inputs, const Checked& c,
                const Tolerance& tol) {
  Tensor out = evaluate(fn, inputs);
  const int64_t m = out.numel();
  std::vector<std::vector<std::vector<double>>> analytical(c.tensors.size());
  for (int64_t j = 0; j < m; ++j) {
    Tensor onehot = zeros(out.sizes(), TensorOptions(DType::F64));
    set(onehot, j, 1.0);
    std::vector<Tensor> g = grad({out}, c.tensors, {onehot.to(out.device(), out.dtype())}, true, true);
    for (size_t i = 0; i < c.tensors.size(); ++i)
      analytical[i].push_back(g[i].defined() ? values_of(g[i])
                                             : std::vector<double>(c.tensors[i].numel(), 0.0));
  }
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const int64_t n = c.tensors[i].numel();
    for (int64_t k = 0; k < n; ++k) {
      std::vector<double> onehot(static_cast<size_t>(n), 0.0);
      onehot[static_cast<size_t>(k)] = 1.0;
      std::vector<double> numerical = central_difference(fn, inputs, c.tensors[i], onehot, tol.eps);
      for (int64_t j = 0; j < m; ++j) {
        double num = numerical[static_cast<size_t>(j)];
        double a = analytical[i][static_cast<size_t>(j)][static_cast<size_t>(k)];
        if (!(std::abs(a - num) <= tol.allowed(num)))
          fail(ErrorCode::InvalidArgument,
               "gradcheck: d(output[{}]) / d(input {}[{}]) is {} by backward ({}) but {} by "
               "central differences (eps {}); allowed difference {}",
               j, c.index[i], k, a, node_name(out), num, tol.eps, tol.allowed(num));
      }
    }
  }
}

// One random projection per input: u . (J_i v_i) by backward against the
// central difference of u . f along v_i. Returns a description of the first
// input that disagrees.
std::optional<std::string> fast_check(const Fn& fn, const std::vector<Tensor>& inputs,
                                      const Checked& c, const Tolerance& tol, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  auto random_values = [&](int64_t n) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = uniform(gen);
    return v;
  };
  Tensor out = evaluate(fn, inputs);
  Tensor u = empty(out.sizes(), TensorOptions(DType::F64));
  const std::vector<double> drawn = random_values(out.numel());
  std::copy(drawn.begin(), drawn.end(), u.data<double>());
  u = u.to(out.device(), out.dtype());
  const std::vector<double> u_values = values_of(u);  // as rounded to out's dtype
  std::vector<Tensor> g = grad({out}, c.tensors, {u}, false, true);
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    std::vector<double> v = random_values(c.tensors[i].numel());
    double analytical = g[i].defined() ? dot(values_of(g[i]), v) : 0.0;
    double numerical = dot(u_values, central_difference(fn, inputs, c.tensors[i], v, tol.eps));
    if (!(std::abs(analytical - numerical) <= tol.allowed(numerical)))
      return fmt::format(
          "gradcheck: the projection u.(J v) for input {} is {} by backward ({}) but {} by "
          "central differences (eps {}); allowed difference {}",
          c.index[i], analytical, node_name(out), numerical, tol.eps, tol.allowed(numerical));
  }
  return std::nullopt;
}

}  // namespace

bool gradcheck(const Fn& fn, const std::vector<Tensor>& inputs, GradcheckOptions o) {
  Checked c = checked_inputs(inputs);
  Tolerance tol = tolerance(c.tensors[0].dtype(), o);
  if (o.fast) {
    std::optional<std::string> mismatch = fast_check(fn, inputs, c, tol, o.seed);
    if (!mismatch) return true;
    full_check(fn, inputs, c, tol);  // names the element
    fail(ErrorCode::InvalidArgument,
         "{}; every element of the Jacobian agrees within the tolerance, so the errors are "
         "small and many",
         *mismatch);
  }
  full_check(fn, inputs, c, tol);
  return true;
}

}  // namespace plexus::autograd
