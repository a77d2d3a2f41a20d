// gradcheck: analytical gradients (one backward per output element) against
// central differences, element by element, in float64 on the cpu.
#include <fmt/format.h>

#include <cmath>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::autograd {
namespace {

// The host address of element k (row-major order) of a cpu float64 tensor.
double* element(const Tensor& t, int64_t k) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    off += (k % t.size(d)) * t.stride(d);
    k /= t.size(d);
  }
  return static_cast<double*>(t.storage()->data()) + t.storage_offset() + off;
}

std::vector<double> values_of(const Tensor& t) {
  return t.detach().to(DType::F64).cpu().tolist<double>();
}

}  // namespace

bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
               const std::vector<Tensor>& inputs, GradcheckOptions o) {
  std::vector<Tensor> checked;
  std::vector<size_t> index;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    PLEXUS_CHECK(x.dtype() == DType::F64 && x.device().is_cpu(), ErrorCode::InvalidArgument,
                 "gradcheck: input {} is {}; checked inputs must be float64 tensors on the cpu",
                 i, x.str());
    checked.push_back(x);
    index.push_back(i);
  }
  PLEXUS_CHECK(!checked.empty(), ErrorCode::InvalidArgument,
               "gradcheck: no input requires grad");
  Tensor out = fn(inputs);
  PLEXUS_CHECK(is_floating(out.dtype()), ErrorCode::InvalidArgument,
               "gradcheck: the function returned {}, expected a floating tensor", out.str());
  const int64_t m = out.numel();
  // Analytical: row j of the Jacobian from a backward of the j-th one-hot.
  std::vector<std::vector<std::vector<double>>> analytical(checked.size());
  for (int64_t j = 0; j < m; ++j) {
    Tensor onehot = zeros(out.sizes(), TensorOptions(DType::F64));
    *element(onehot, j) = 1.0;
    Tensor seed = onehot.to(out.device(), out.dtype());
    std::vector<Tensor> g = grad({out}, checked, {seed}, true, true);
    for (size_t i = 0; i < checked.size(); ++i)
      analytical[i].push_back(g[i].defined() ? values_of(g[i])
                                             : std::vector<double>(checked[i].numel(), 0.0));
  }
  // Numerical: central differences, one input element at a time.
  NoGradGuard no_grad;
  for (size_t i = 0; i < checked.size(); ++i) {
    for (int64_t k = 0; k < checked[i].numel(); ++k) {
      double* p = element(checked[i], k);
      const double saved = *p;
      *p = saved + o.eps;
      std::vector<double> plus = values_of(fn(inputs));
      *p = saved - o.eps;
      std::vector<double> minus = values_of(fn(inputs));
      *p = saved;
      for (int64_t j = 0; j < m; ++j) {
        double numerical = (plus[static_cast<size_t>(j)] - minus[static_cast<size_t>(j)]) / (2 * o.eps);
        double a = analytical[i][static_cast<size_t>(j)][static_cast<size_t>(k)];
        if (!(std::abs(a - numerical) <= o.atol + o.rtol * std::abs(numerical)))
          fail(ErrorCode::InvalidArgument,
               "gradcheck: d(output[{}]) / d(input {}[{}]) is {} by backward ({}) but {} by "
               "central differences (eps {}); allowed difference {}",
               j, index[i], k, a, out.grad_fn() ? out.grad_fn()->name() : "no grad_fn",
               numerical, o.eps, o.atol + o.rtol * std::abs(numerical));
      }
    }
  }
  return true;
}

}  // namespace plexus::autograd
