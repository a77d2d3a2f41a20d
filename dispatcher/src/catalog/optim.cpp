// Fused optimizer steps: adam_step_ (AdamW with decoupled_weight_decay;
// AMSGrad as the `.amsgrad` overloads, which also write max_exp_avg_sq) and
// sgd_step_, per tensor and over tensor lists (the `.list` overloads, one call
// for every parameter). Each writes several tensors (Note [Ops that write
// several tensors]). The composite of a per-tensor step is the sequence of
// catalog ops optim's capturable per-tensor path runs (PyTorch's formulas);
// that of a list step calls the per-tensor step once per parameter.
//
// What kernels receive: self, grad and the state tensors of one step are
// contiguous, of one floating dtype (the compute dtype) and one shape; step
// is a 0-d float32 tensor and lr a 0-d tensor of the compute dtype, both on
// the call's device. A list step's lists have one length and one dtype.
// Anything else (non-contiguous views, a float64 step) runs the composite.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "catalog/catalog.h"
#include "catalog/optim_steps.h"
#include "call/overlap.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// Where adam_step_.amsgrad's max_exp_avg_sq is: after the options.
constexpr size_t kMaxExpAvgSq = 11;

bool same_sizes(IntArrayRef a, IntArrayRef b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// The name of argument `name` for element `index` of a list step (-1: a per-tensor step).
std::string arg_name(const char* name, int64_t index) {
  return index < 0 ? std::string(name) : fmt::format("{}[{}]", name, index);
}

// The checks of one parameter's step: like[0] is self, the others (named
// names[k]) must match it and no two may share memory. True when kernels may
// take the step.
bool check_one(std::span<const Tensor> like, const char* const* names, int64_t index,
               const Tensor& step) {
  const Tensor& self = like[0];
  PLEXUS_CHECK_ARG(is_floating(self.dtype()), arg_name("self", index), "must be floating, got {}",
                   dtype_name(self.dtype()));
  bool contiguous = true;
  for (size_t k = 0; k < like.size(); ++k) {
    const Tensor& t = like[k];
    PLEXUS_CHECK_ARG(t.dtype() == self.dtype() && same_sizes(t.sizes(), self.sizes()) &&
                         t.device() == self.device(),
                     arg_name(names[k], index), "must match self ({} {} on {}), got {}",
                     dtype_name(self.dtype()), shape_str(self.sizes()), self.device().str(),
                     t.str());
    contiguous = contiguous && t.is_contiguous();
    for (size_t j = 0; j < k; ++j)
      PLEXUS_CHECK_ARG(overlap(like[j], t) == Overlap::None, arg_name(names[k], index),
                       "must not share memory with {} (the tensors of one step are distinct)",
                       arg_name(names[j], index));
  }
  if (!step.defined()) return contiguous;
  PLEXUS_CHECK_ARG(step.dim() == 0 && is_floating(step.dtype()) && step.device() == self.device(),
                   arg_name("step", index), "step must be a 0-d floating tensor on {}, got {}",
                   self.device().str(), step.str());
  return contiguous && step.dtype() == DType::F32;
}

// lr: a 0-d floating tensor, handed to kernels in the compute dtype on the
// device (float32 for float16 and bfloat16 parameters: their composite
// computes in float32).
void prepare_lr(MetaContext& ctx, size_t i, DType dtype) {
  const Tensor& lr = ctx.tensor(i);
  PLEXUS_CHECK_ARG(lr.dim() == 0 && is_floating(lr.dtype()), ctx.name(i),
                   "must be a 0-d floating tensor, got {}", lr.str());
  prepare_input(ctx, i, accumulate_dtype(dtype));
}

// adam_step_(self, grad, exp_avg, exp_avg_sq, step, lr, ...)
std::optional<DType> adam_check(MetaContext& ctx) {
  const Tensor ts[] = {ctx.tensor(0), ctx.tensor(1), ctx.tensor(2), ctx.tensor(3)};
  static const char* const names[] = {"self", "grad", "exp_avg", "exp_avg_sq"};
  bool kernel = check_one(ts, names, -1, ctx.tensor(4));
  prepare_lr(ctx, 5, ts[0].dtype());
  if (!kernel) return std::nullopt;
  return ts[0].dtype();
}

// adam_step_.amsgrad(self, grad, exp_avg, exp_avg_sq, step, lr, ..., max_exp_avg_sq)
std::optional<DType> adam_amsgrad_check(MetaContext& ctx) {
  const Tensor ts[] = {ctx.tensor(0), ctx.tensor(1), ctx.tensor(2), ctx.tensor(3),
                       ctx.tensor(kMaxExpAvgSq)};
  static const char* const names[] = {"self", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  bool kernel = check_one(ts, names, -1, ctx.tensor(4));
  prepare_lr(ctx, 5, ts[0].dtype());
  if (!kernel) return std::nullopt;
  return ts[0].dtype();
}

// sgd_step_(self, grad, momentum_buffer?, lr, ...)
std::optional<DType> sgd_check(MetaContext& ctx) {
  static const char* const names[] = {"self", "grad", "momentum_buffer"};
  const Tensor* buf = ctx.optional_tensor(2);
  PLEXUS_CHECK_ARG(buf || ctx.real(4) == 0, ctx.name(2), "is needed when momentum is not 0");
  const Tensor ts[] = {ctx.tensor(0), ctx.tensor(1), buf ? *buf : Tensor()};
  bool kernel = check_one(std::span(ts, buf ? 3 : 2), names, -1, Tensor());
  prepare_lr(ctx, 3, ts[0].dtype());
  if (!kernel) return std::nullopt;
  return ts[0].dtype();
}

// The list steps: every list as long as self (`optional_list` may be empty),
// each parameter checked as its per-tensor step checks it. `lists` are the
// lists of tensors like self (self first), `step_list` that of the step counts.
std::optional<DType> list_check(MetaContext& ctx, std::initializer_list<size_t> lists,
                                size_t step_list, size_t lr, size_t optional_list) {
  std::span<const Tensor> self = ctx.tensor_list(0);
  const char* names[5] = {};
  size_t nlike = 0;
  for (size_t l : lists) {
    size_t n = ctx.tensor_list(l).size();
    PLEXUS_CHECK_ARG(n == self.size() || (l == optional_list && n == 0), ctx.name(l),
                     "has {} tensors, self has {}", n, self.size());
    if (l != step_list && n > 0) names[nlike++] = ctx.name(l).c_str();
  }
  if (step_list != SIZE_MAX) {
    size_t n = ctx.tensor_list(step_list).size();
    PLEXUS_CHECK_ARG(n == self.size(), ctx.name(step_list), "has {} tensors, self has {}", n,
                     self.size());
  }
  bool kernel = !self.empty();
  for (size_t i = 0; i < self.size(); ++i) {
    Tensor ts[5];
    size_t k = 0;
    for (size_t l : lists)
      if (l != step_list && !ctx.tensor_list(l).empty()) ts[k++] = ctx.tensor_list(l)[i];
    Tensor step = step_list != SIZE_MAX ? ctx.tensor_list(step_list)[i] : Tensor();
    kernel = check_one(std::span(ts, k), names, static_cast<int64_t>(i), step) && kernel &&
             self[i].dtype() == self[0].dtype() && self[i].device() == self[0].device();
  }
  if (self.empty()) return std::nullopt;
  prepare_lr(ctx, lr, self[0].dtype());
  if (!kernel) return std::nullopt;
  return self[0].dtype();
}
std::optional<DType> adam_list_check(MetaContext& ctx) {
  return list_check(ctx, {0, 1, 2, 3}, 4, 5, SIZE_MAX);
}
std::optional<DType> adam_amsgrad_list_check(MetaContext& ctx) {
  return list_check(ctx, {0, 1, 2, 3, kMaxExpAvgSq}, 4, 5, SIZE_MAX);
}
std::optional<DType> sgd_list_check(MetaContext& ctx) {
  PLEXUS_CHECK_ARG(!ctx.tensor_list(2).empty() || ctx.real(4) == 0 || ctx.tensor_list(0).empty(),
                   ctx.name(2), "is needed when momentum is not 0");
  return list_check(ctx, {0, 1, 2}, SIZE_MAX, 3, 2);
}

// The per-tensor composites, from the boxed arguments.
AdamStepOptions adam_options(std::span<const Value> a) {
  return {a[6].to_double(), a[7].to_double(), a[8].to_double(), a[9].to_double(),
          a[10].to_bool()};
}
// adam_step_, and its AMSGrad overload (max_exp_avg_sq last).
template <bool Amsgrad>
void adam_composite(void*, KernelCall& call) {
  const auto& a = call.args;
  adam_step_ops(a[0].to_tensor(), a[1].to_tensor(), a[2].to_tensor(), a[3].to_tensor(),
                a[4].to_tensor(), a[5].to_tensor(), adam_options(a),
                Amsgrad ? a[kMaxExpAvgSq].to_tensor() : Tensor());
}
void sgd_composite(void*, KernelCall& call) {
  const auto& a = call.args;
  SgdStepOptions h{a[4].to_double(), a[5].to_double(), a[6].to_double(), a[7].to_bool(),
             a[8].to_bool()};
  Tensor buf = a[2].is_tensor() ? a[2].to_tensor() : Tensor();
  sgd_step_ops(a[0].to_tensor(), a[1].to_tensor(), buf, a[3].to_tensor(), h);
}

// The list composites: the per-tensor step once per parameter, through the
// dispatcher, so a backend's per-tensor kernel runs where it has one.
template <bool Amsgrad>
void adam_list_composite(void*, KernelCall& call) {
  const auto& a = call.args;
  for (size_t i = 0; i < a[0].to_tensor_list().size(); ++i)
    adam_step_(a[0].to_tensor_list()[i], a[1].to_tensor_list()[i], a[2].to_tensor_list()[i],
               a[3].to_tensor_list()[i], a[4].to_tensor_list()[i], a[5].to_tensor(),
               adam_options(a), Amsgrad ? a[kMaxExpAvgSq].to_tensor_list()[i] : Tensor());
}
void sgd_list_composite(void*, KernelCall& call) {
  const auto& a = call.args;
  auto bufs = a[2].to_tensor_list();
  for (size_t i = 0; i < a[0].to_tensor_list().size(); ++i)
    sgd_step_(a[0].to_tensor_list()[i], a[1].to_tensor_list()[i],
              bufs.empty() ? Tensor() : bufs[i], a[3].to_tensor(),
              {a[4].to_double(), a[5].to_double(), a[6].to_double(), a[7].to_bool(),
               a[8].to_bool()});
}

constexpr const char* kAdamOptions =
    "*, float beta1=0.9, float beta2=0.999, float eps=1e-08, float weight_decay=0., "
    "bool decoupled_weight_decay=False) -> ()";
// AMSGrad's overloads take the running maximum last, so that every argument
// before it sits where adam_step_'s does (a kernel reads both alike).
constexpr const char* kAdamAmsgradOptions =
    "*, float beta1=0.9, float beta2=0.999, float eps=1e-08, float weight_decay=0., "
    "bool decoupled_weight_decay=False, ";
constexpr const char* kSgdOptions =
    "*, float momentum=0., float dampening=0., float weight_decay=0., bool nesterov=False, "
    "bool first_step=False) -> ()";

}  // namespace

void define_optim_ops(Dispatcher& d) {
  d.define_direct(std::string("adam_step_(Tensor(a!) self, Tensor grad, Tensor(b!) exp_avg, "
                              "Tensor(c!) exp_avg_sq, Tensor(d!) step, Tensor lr, ") +
                      kAdamOptions,
                  adam_composite<false>, adam_check, kFloatTypes);
  d.define_direct(std::string("adam_step_.list(Tensor(a!)[] self, Tensor[] grad, Tensor(b!)[] "
                              "exp_avg, Tensor(c!)[] exp_avg_sq, Tensor(d!)[] step, Tensor lr, ") +
                      kAdamOptions,
                  adam_list_composite<false>, adam_list_check, kFloatTypes);
  d.define_direct(std::string("adam_step_.amsgrad(Tensor(a!) self, Tensor grad, Tensor(b!) "
                              "exp_avg, Tensor(c!) exp_avg_sq, Tensor(d!) step, Tensor lr, ") +
                      kAdamAmsgradOptions + "Tensor(e!) max_exp_avg_sq) -> ()",
                  adam_composite<true>, adam_amsgrad_check, kFloatTypes);
  d.define_direct(std::string("adam_step_.amsgrad_list(Tensor(a!)[] self, Tensor[] grad, "
                              "Tensor(b!)[] exp_avg, Tensor(c!)[] exp_avg_sq, Tensor(d!)[] step, "
                              "Tensor lr, ") +
                      kAdamAmsgradOptions + "Tensor(e!)[] max_exp_avg_sq) -> ()",
                  adam_list_composite<true>, adam_amsgrad_list_check, kFloatTypes);
  d.define_direct(std::string("sgd_step_(Tensor(a!) self, Tensor grad, Tensor(b!)? "
                              "momentum_buffer, Tensor lr, ") +
                      kSgdOptions,
                  sgd_composite, sgd_check, kFloatTypes);
  d.define_direct(std::string("sgd_step_.list(Tensor(a!)[] self, Tensor[] grad, Tensor(b!)[] "
                              "momentum_buffer, Tensor lr, ") +
                      kSgdOptions,
                  sgd_list_composite, sgd_list_check, kFloatTypes);
}

}  // namespace plexus
