// Conformance cases of the fused optimizer steps: adam_step_ (and its
// AMSGrad overloads) and sgd_step_,
// per tensor and over lists. Every written tensor (parameter, state, step
// count) is compared with the reference (reference/optim.cpp).
#include "reference/optim.h"

#include "suite.h"

namespace plexus::conformance {
namespace {

// float32 kernels round each of the update's dozen operations once; the
// parameter moves by about lr, so an absolute bound of a few ULPs of lr holds.
Tolerance step_tolerance(DType dt) {
  return dt == DType::F64 ? Tolerance{.ulps = 16, .atol = 1e-13}
                          : Tolerance{.ulps = 8, .atol = 4e-7};
}

ref::Tensor zero_d(DType dt, double v) { return from_values(dt, {}, {v}); }

// The learning rate the op reads: the case's 0-d lr, rounded to its dtype.
double lr_of(const Inputs& in) { return ref::round_to(in["lr"].dtype, in["lr"].at(0)); }

// One parameter's tensors for a step: p, g, state in [-1, 1] (v in [0, 1]).
struct Param {
  ref::Tensor p, g, m, v;
};
Param make_param(Rng& rng, DType dt, const ref::Sizes& sizes, bool fresh) {
  Param x{random(rng, dt, sizes), random(rng, dt, sizes), random(rng, dt, sizes, {-1, 1}),
          random(rng, dt, sizes, {0, 1})};
  if (fresh) x.m = x.v = ref::Tensor(dt, sizes);
  return x;
}

// One Adam step; with `amsgrad`, the adam_step_.amsgrad form, whose running
// maximum starts at random values in [0, 1] (above v for some elements, below
// for others) or at zeros on a first step.
void adam_case(CaseSet& set, const std::string& name, const ref::Sizes& sizes, double step,
               ref::AdamHyper h, uint32_t layout = Contiguous, bool amsgrad = false) {
  const DType dt = set.dtype();
  const double lr = 1e-2;
  Case& c = set.add(name);
  Param x = make_param(c.rng, dt, sizes, step == 0);
  c.tensor("self", x.p, layout).tensor("grad", x.g, layout);
  c.tensor("exp_avg", x.m, layout).tensor("exp_avg_sq", x.v, layout);
  c.tensor("step", zero_d(DType::F32, step)).tensor("lr", zero_d(dt, lr));
  if (amsgrad)
    c.tensor("max_exp_avg_sq",
             step == 0 ? ref::Tensor(dt, sizes) : random(c.rng, dt, sizes, {0, 1}), layout);
  c.arg("beta1", h.beta1).arg("beta2", h.beta2).arg("eps", h.eps);
  c.arg("weight_decay", h.weight_decay).arg("decoupled_weight_decay", h.decoupled);
  c.tolerance(step_tolerance(dt)).ref([h, amsgrad](const Inputs& in) {
    ref::Tensor p = in["self"], m = in["exp_avg"], v = in["exp_avg_sq"], s = in["step"];
    ref::Tensor vmax = amsgrad ? in["max_exp_avg_sq"] : ref::Tensor();
    ref::adam_step(p, in["grad"], m, v, s, lr_of(in), h, amsgrad ? &vmax : nullptr);
    Expected e;
    e.written = {{"self", p}, {"exp_avg", m}, {"exp_avg_sq", v}, {"step", s}};
    if (amsgrad) e.written.insert({"max_exp_avg_sq", vmax});
    return e;
  });
}

void adam_amsgrad_cases(CaseSet& set) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, const ref::Sizes& sizes, double step, ref::AdamHyper h,
                 uint32_t layout = Contiguous) {
    adam_case(set, name, sizes, step, h, layout, true);
  };
  add("first_step", {13, 17}, 0, {});
  add("step_4", {13, 17}, 4, {.beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6});
  add("weight_decay", {31}, 2, {.weight_decay = 0.1});
  add("adamw", {31}, 2, {.weight_decay = 0.1, .decoupled = true});
  add("0d", {}, 1, {});
  add("empty", {0, 3}, 1, {});
  add("large", {517, 263}, 7, {.weight_decay = 0.01, .decoupled = true});
  add("transposed", {6, 9}, 3, {}, Transposed);
  Case& e = set.add("max_shape_differs");
  e.tensor("self", random(e.rng, dt, {4})).tensor("grad", random(e.rng, dt, {4}));
  e.tensor("exp_avg", random(e.rng, dt, {4})).tensor("exp_avg_sq", random(e.rng, dt, {4}));
  e.tensor("step", zero_d(DType::F32, 0)).tensor("lr", zero_d(dt, 0.1));
  e.tensor("max_exp_avg_sq", random(e.rng, dt, {5}));
  e.expect_error = "must match self";
}

void adam_cases(CaseSet& set) {
  const DType dt = set.dtype();
  adam_case(set, "first_step", {13, 17}, 0, {});
  adam_case(set, "step_4", {13, 17}, 4, {.beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6});
  adam_case(set, "weight_decay", {31}, 2, {.weight_decay = 0.1});
  adam_case(set, "adamw", {31}, 2, {.weight_decay = 0.1, .decoupled = true});
  adam_case(set, "0d", {}, 1, {});
  adam_case(set, "empty", {0, 3}, 1, {});
  adam_case(set, "large", {517, 263}, 7, {.weight_decay = 0.01, .decoupled = true});
  adam_case(set, "transposed", {6, 9}, 3, {}, Transposed);
  adam_case(set, "offset", {7, 5}, 3, {}, Offset);
  Case& e = set.add("grad_shape_differs");
  e.tensor("self", random(e.rng, dt, {4})).tensor("grad", random(e.rng, dt, {5}));
  e.tensor("exp_avg", random(e.rng, dt, {4})).tensor("exp_avg_sq", random(e.rng, dt, {4}));
  e.tensor("step", zero_d(DType::F32, 0)).tensor("lr", zero_d(dt, 0.1));
  e.expect_error = "must match self";
}

template <bool Amsgrad>
void adam_list_cases(CaseSet& set) {
  const DType dt = set.dtype();
  for (bool decoupled : {false, true}) {
    const ref::AdamHyper h{.weight_decay = 0.05, .decoupled = decoupled};
    const std::vector<ref::Sizes> shapes = {{5}, {3, 4}, {}, {64, 10}};
    Case& c = set.add(decoupled ? "adamw_4_tensors" : "adam_4_tensors");
    std::vector<TensorArg> ps, gs, ms, vs, steps, maxes;
    for (size_t k = 0; k < shapes.size(); ++k) {
      Param x = make_param(c.rng, dt, shapes[k], k == 0);
      ps.push_back({x.p, Contiguous, {}});
      gs.push_back({x.g, Contiguous, {}});
      ms.push_back({x.m, Contiguous, {}});
      vs.push_back({x.v, Contiguous, {}});
      steps.push_back({zero_d(DType::F32, k == 0 ? 0 : double(k + 2)), Contiguous, {}});
      if (Amsgrad)
        maxes.push_back({k == 0 ? ref::Tensor(dt, shapes[k]) : random(c.rng, dt, shapes[k], {0, 1}),
                         Contiguous,
                         {}});
    }
    c.arg("self", ps).arg("grad", gs).arg("exp_avg", ms).arg("exp_avg_sq", vs).arg("step", steps);
    if (Amsgrad) c.arg("max_exp_avg_sq", maxes);
    c.tensor("lr", zero_d(dt, 1e-2)).arg("weight_decay", h.weight_decay);
    c.arg("decoupled_weight_decay", decoupled);
    c.tolerance(step_tolerance(dt)).ref([h](const Inputs& in) {
      Expected e;
      for (size_t k = 0; k < in.list("self").size(); ++k) {
        ref::Tensor p = in.list("self")[k], m = in.list("exp_avg")[k];
        ref::Tensor v = in.list("exp_avg_sq")[k], s = in.list("step")[k];
        ref::Tensor vmax = Amsgrad ? in.list("max_exp_avg_sq")[k] : ref::Tensor();
        ref::adam_step(p, in.list("grad")[k], m, v, s, lr_of(in), h, Amsgrad ? &vmax : nullptr);
        const std::string i = "[" + std::to_string(k) + "]";
        e.written.insert({{"self" + i, p}, {"exp_avg" + i, m}, {"exp_avg_sq" + i, v},
                          {"step" + i, s}});
        if (Amsgrad) e.written.insert({"max_exp_avg_sq" + i, vmax});
      }
      return e;
    });
  }
}

void sgd_case(CaseSet& set, const std::string& name, const ref::Sizes& sizes, ref::SgdHyper h,
              uint32_t layout = Contiguous) {
  const DType dt = set.dtype();
  const double lr = 0.05;
  Case& c = set.add(name);
  Param x = make_param(c.rng, dt, sizes, false);
  c.tensor("self", x.p, layout).tensor("grad", x.g, layout).tensor("lr", zero_d(dt, lr));
  if (h.momentum != 0) c.tensor("momentum_buffer", x.m, layout);
  else c.arg("momentum_buffer", NoneArg{});
  c.arg("momentum", h.momentum).arg("dampening", h.dampening);
  c.arg("weight_decay", h.weight_decay).arg("nesterov", h.nesterov).arg("first_step", h.first_step);
  const bool has_buf = h.momentum != 0;
  c.tolerance(step_tolerance(dt)).ref([h, has_buf](const Inputs& in) {
    ref::Tensor p = in["self"];
    ref::Tensor buf = has_buf ? in["momentum_buffer"] : ref::Tensor();
    ref::sgd_step(p, in["grad"], has_buf ? &buf : nullptr, lr_of(in), h);
    Expected e;
    e.written = {{"self", p}};
    if (has_buf) e.written.emplace("momentum_buffer", buf);
    return e;
  });
}

void sgd_cases(CaseSet& set) {
  sgd_case(set, "plain", {13, 17}, {});
  sgd_case(set, "weight_decay", {31}, {.weight_decay = 0.1});
  sgd_case(set, "momentum_first_step", {31}, {.momentum = 0.9, .first_step = true});
  sgd_case(set, "momentum", {13, 17}, {.momentum = 0.9, .dampening = 0.1});
  sgd_case(set, "nesterov", {13, 17}, {.momentum = 0.9, .nesterov = true});
  sgd_case(set, "0d", {}, {.momentum = 0.5});
  sgd_case(set, "large", {517, 263}, {.momentum = 0.9, .weight_decay = 0.01});
  sgd_case(set, "transposed", {6, 9}, {.momentum = 0.9}, Transposed);
}

void sgd_list_cases(CaseSet& set) {
  const DType dt = set.dtype();
  for (double momentum : {0.0, 0.9}) {
    const ref::SgdHyper h{.momentum = momentum, .weight_decay = 0.01};
    Case& c = set.add(momentum != 0 ? "momentum_3_tensors" : "plain_3_tensors");
    std::vector<TensorArg> ps, gs, bufs;
    for (const ref::Sizes& sizes : std::vector<ref::Sizes>{{5}, {3, 4}, {}}) {
      Param x = make_param(c.rng, dt, sizes, false);
      ps.push_back({x.p, Contiguous, {}});
      gs.push_back({x.g, Contiguous, {}});
      if (momentum != 0) bufs.push_back({x.m, Contiguous, {}});
    }
    c.arg("self", ps).arg("grad", gs).arg("momentum_buffer", bufs).tensor("lr", zero_d(dt, 0.05));
    c.arg("momentum", momentum).arg("weight_decay", h.weight_decay);
    c.tolerance(step_tolerance(dt)).ref([h](const Inputs& in) {
      Expected e;
      for (size_t k = 0; k < in.list("self").size(); ++k) {
        ref::Tensor p = in.list("self")[k];
        const bool has_buf = !in.list("momentum_buffer").empty();
        ref::Tensor buf = has_buf ? in.list("momentum_buffer")[k] : ref::Tensor();
        ref::sgd_step(p, in.list("grad")[k], has_buf ? &buf : nullptr, lr_of(in), h);
        const std::string i = "[" + std::to_string(k) + "]";
        e.written.emplace("self" + i, p);
        if (has_buf) e.written.emplace("momentum_buffer" + i, buf);
      }
      return e;
    });
  }
}

}  // namespace

void add_optim_ops(std::vector<OpInfo>& v) {
  v.push_back({"adam_step_", adam_cases});
  v.push_back({"adam_step_.list", adam_list_cases<false>});
  v.push_back({"adam_step_.amsgrad", adam_amsgrad_cases});
  v.push_back({"adam_step_.amsgrad_list", adam_list_cases<true>});
  v.push_back({"sgd_step_", sgd_cases});
  v.push_back({"sgd_step_.list", sgd_list_cases});
}

}  // namespace plexus::conformance
