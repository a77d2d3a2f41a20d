// The forward parity driver (see forward_parity.h): one case variant through
// plexus and through aten, compared with the case's tolerance doubled (each
// side may be off the exact value by the tolerance), the conformance
// reference saying which side is right when they disagree.
#include "parity/forward_parity.h"

#include <fmt/format.h>

#include <cmath>

#include "parity/aten_call.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "runner.h"

namespace plexus::parity {

namespace conf = conformance;

namespace {

// Cases whose inputs hold more elements are left to the conformance suite:
// they test accuracy over long runs, which the reference checks better.
constexpr int64_t kMaxElements = 1 << 17;

// What one side of a variant produced: the written values, or an error.
struct Outcome {
  std::optional<ref::Tensor> values;
  std::string error;
  bool no_aten = false;  // aten has neither this form nor the functional one
};

// The first line of an error message (libtorch's carry a backtrace).
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

int64_t input_elements(const conf::Case& c) {
  int64_t n = 0;
  for (const auto& [name, a] : c.args) {
    if (auto* t = std::get_if<conf::TensorArg>(&a)) n += t->values.numel();
    if (auto* l = std::get_if<std::vector<conf::TensorArg>>(&a))
      for (const conf::TensorArg& t : *l) n += t.values.numel();
  }
  return n;
}

const Operator* form_for(const conf::OpForms& f, const std::string& variant) {
  return variant == "functional" ? f.functional : variant == "inplace" ? f.inplace : f.out;
}

Outcome run_plexus(const conf::Target& tg, const Operator& op, const conf::Case& c,
                   conf::PreparedCall& call, const std::string& variant) {
  Outcome o;
  try {
    Tensor result = Dispatcher::get().call(op, call.b.values);
    const Tensor& written = variant == "functional" ? result
                            : variant == "out"      ? call.out->view
                                                    : call.tensor_named(c, call.written_name).view;
    o.values = conf::decode_view(written, conf::read_storage(tg, written));
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

// The inputs an internal aten gradient op expects: contiguous, and for
// elementwise ops broadcast to one shape (the values are the same).
TorchTensors as_internal(TorchTensors t, bool elementwise) {
  std::vector<torch::Tensor> all;
  for (auto& [name, x] : t.tensors) all.push_back(x);
  std::vector<torch::Tensor> same = elementwise ? torch::broadcast_tensors(all) : all;
  size_t k = 0;
  for (auto& [name, x] : t.tensors) x = same[k++].contiguous();
  return t;
}

// The inputs with float16/bfloat16 tensors in float32: libtorch 1.13's cpu
// lacks 16-bit kernels for many ops (exp, lerp, mse_loss, ...).
// `low` gets the 16-bit dtype seen.
TorchTensors upcast(TorchTensors t, c10::ScalarType& low) {
  auto up = [&](torch::Tensor& x) {
    if (x.scalar_type() != torch::kHalf && x.scalar_type() != torch::kBFloat16) return;
    low = x.scalar_type();
    x = x.to(torch::kFloat32);
  };
  for (auto& [name, x] : t.tensors) up(x);
  for (auto& [name, l] : t.lists)
    for (torch::Tensor& x : l) up(x);
  return t;
}

// Calls aten op `aten` (spelled as plexus op `spelled`) and returns what the
// plexus form `variant` writes: the result, self, or out.
torch::Tensor call_aten(const c10::OperatorHandle& aten, const Operator& spelled, const Operator& op,
                        const conf::Case& c, TorchTensors& t, const std::string& variant,
                        c10::ScalarType written) {
  torch::jit::Stack stack = aten_stack(aten.schema(), spelled.schema(), c, t);
  aten.callBoxed(&stack);
  torch::Tensor r = stack.at(0).toTensor();
  if (&spelled == &op && variant != "functional" && variant != "inplace") r = t.out;
  // A form computed through aten's functional one lands in the written dtype.
  return &spelled == &op ? r : r.to(written);
}

// aten's op for plexus form `op`; when aten has no such form (conv2d.out),
// or no 16-bit kernel, its functional form, whose result (rounded to the
// written dtype) the written tensor must then hold.
Outcome run_torch(const Operator& op, const conf::OpForms& forms, const conf::Case& c,
                  TorchTensors& t, const std::string& variant, ParityReport& report) {
  Outcome o;
  std::optional<c10::OperatorHandle> aten = find_aten(op.name());
  const Operator* functional = forms.functional ? forms.functional : &op;
  const Operator* spelled = &op;
  if (!aten && variant != "functional") {
    aten = find_aten(functional->name());
    spelled = functional;
    report.notes.insert(op.name() + ": aten has no such form; compared with aten's " + spelled->name());
  }
  if (!aten) {
    o.no_aten = true;
    return o;
  }
  if (aten_internal(op.name())) t = as_internal(t, op.elementwise());
  const c10::ScalarType written =
      variant == "functional" ? torch::kFloat32
      : variant == "inplace"  ? t.tensors.at(t.written).scalar_type()
                              : t.out.scalar_type();
  try {
    try {
      o.values = ref_values(call_aten(*aten, *spelled, op, c, t, variant, written));
    } catch (const c10::Error& e) {
      const std::string m = e.what_without_backtrace();
      if (c.expect_error || (m.find("not implemented for 'Half'") == std::string::npos &&
                             m.find("not implemented for 'BFloat16'") == std::string::npos))
        throw;
      std::optional<c10::OperatorHandle> fn = find_aten(functional->name());
      c10::ScalarType low = torch::kFloat32;
      TorchTensors up = upcast(t, low);
      torch::Tensor r = call_aten(*fn, *functional, *functional, c, up, "functional", written);
      const c10::ScalarType to = variant == "functional" ? low : written;
      o.values = ref_values(r.scalar_type() == torch::kFloat32 ? r.to(to) : r);
      ++report.upcast[op.name()];
    }
  } catch (const c10::Error& e) {
    o.error = first_line(e.what_without_backtrace());
  } catch (const std::exception& e) {
    o.error = first_line(e.what());
  }
  return o;
}

conf::Tolerance doubled(conf::Tolerance t) {
  t.ulps = 2 * t.ulps + 1;
  t.atol *= 2;
  t.rtol *= 2;
  t.acc *= 2;
  return t;
}

// True when two results of one dtype and shape differ only in finite values
// (NaN against NaN, the same infinities): a matter of rounding, not of rule.
bool finite_differences_only(const ref::Tensor& a, const ref::Tensor& b) {
  if (a.dtype != b.dtype || a.sizes != b.sizes || a.integral()) return false;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const double x = a.at(k), y = b.at(k);
    if (std::isnan(x) != std::isnan(y) || ((std::isinf(x) || std::isinf(y)) && x != y)) return false;
  }
  return true;
}

// How plexus (p) and libtorch (t) compare on a case.
struct Verdict {
  enum Kind { Agree, Rounding, Differ } kind = Agree;
  std::string message;  // for Differ
};

// Where the two disagree only in finite values and plexus is within the
// case's tolerance of the float64 reference, libtorch is the less accurate
// one (bfloat16 intermediates, ...): counted, not held against plexus.
Verdict judge(const conf::Case& c, const Outcome& p, const Outcome& t,
              const std::optional<conf::Expected>& want) {
  if (!p.error.empty() && !t.error.empty()) return {};
  if (!p.error.empty()) return {Verdict::Differ, "plexus refuses (" + p.error + "), libtorch computes a result"};
  if (!t.error.empty()) return {Verdict::Differ, "libtorch refuses (" + t.error + "), plexus computes a result"};
  conf::Expected theirs{*t.values, {}};
  if (want && want->values.sizes == t.values->sizes) theirs.scale = want->scale;
  conf::Comparison cmp = conf::compare(theirs, *p.values, doubled(c.tol));
  if (cmp.ok) return {};
  const bool plexus_right = want && conf::compare(*want, *p.values, c.tol).ok;
  if (plexus_right && finite_differences_only(*p.values, *t.values)) return {Verdict::Rounding, ""};
  const bool torch_right = want && t.values->dtype == want->values.dtype && conf::compare(*want, *t.values, c.tol).ok;
  return {Verdict::Differ, "plexus vs libtorch: " + cmp.message +
                               (plexus_right  ? " [plexus matches the reference]"
                                : torch_right ? " [libtorch matches the reference]"
                                              : "")};
}

}  // namespace

namespace {
// Glob match against any of the comma-separated globs of `patterns`.
bool matches(std::string_view patterns, std::string_view text) {
  for (size_t at = 0;;) {
    const size_t comma = patterns.find(',', at);
    if (conf::glob_match(patterns.substr(at, comma - at), text)) return true;
    if (comma == std::string_view::npos) return false;
    at = comma + 1;
  }
}

const Difference* find_entry(const std::vector<Difference>& table, const Mismatch& m) {
  for (const Difference& d : table)
    if (matches(d.op, m.op) && matches(d.dtype, m.dtype) && matches(d.name, m.name) &&
        matches(d.variant, m.variant))
      return &d;
  return nullptr;
}
}  // namespace

const Difference* listed(const Mismatch& m) { return find_entry(differences(), m); }

namespace {

void run_case(const conf::Target& tg, const conf::OpForms& forms, const conf::Case& c, DType dt,
              ParityReport& report) {
  std::optional<conf::Expected> want;
  try {
    if (!c.expect_error) want = c.reference(conf::logical_inputs(c));
  } catch (const std::exception&) {
  }
  for (const std::string& v : conf::variants_of(forms, c, want ? &*want : nullptr)) {
    // Without an expected result (an error case) the out= forms have no
    // meaningful out: the op's first form stands for it.
    if (!want && v != "functional" && !(v == "inplace" && !forms.functional)) continue;
    const Operator* op = form_for(forms, v);
    if (const Difference* crash = find_entry(torch_crashes(), {op->name(), std::string(dtype_name(dt)), c.name, v, ""})) {
      ++report.crashes_skipped[crash];
      continue;
    }
    conf::Rng poison(c.rng);
    poison.bits();
    conf::PreparedCall call;
    conf::prepare_call(tg, *op, c, v, want ? &*want : nullptr, poison, call);
    TorchTensors t = torch_tensors(c, call, v);
    Outcome to = run_torch(*op, forms, c, t, v, report);
    if (to.no_aten) continue;  // listed in unmatched_ops()
    Outcome po = run_plexus(tg, *op, c, call, v);
    ++report.compared[op->name()];
    const Verdict verdict = judge(c, po, to, want);
    if (verdict.kind == Verdict::Rounding) ++report.accuracy[op->name() + "/" + std::string(dtype_name(dt))];
    if (verdict.kind == Verdict::Differ)
      report.mismatches.push_back({op->name(), std::string(dtype_name(dt)), c.name, v, verdict.message});
  }
}

}  // namespace

ParityReport run_forward_parity(const conf::Target& tg, const std::string& filter) {
  ParityReport report;
  std::map<std::string, conf::OpInfo> infos;
  for (conf::OpInfo& oi : conf::all_op_infos()) infos[oi.op] = oi;
  for (conf::OpInfo& oi : parity_op_infos()) infos[oi.op] = oi;
  for (const Operator* op : Dispatcher::get().ops()) {
    if (&op->kernel_op() != op || !infos.count(op->name())) continue;
    const conf::OpInfo& info = infos.at(op->name());
    const conf::OpForms forms = conf::forms_of(*op);
    const DTypeSet dtypes = op->kind() == OpKind::Direct ? info.dtypes : op->catalog_dtypes();
    for (int d = 0; d < kNumDTypes; ++d) {
      const DType dt = static_cast<DType>(d);
      if (!dtypes.contains(dt) || !conf::glob_match(filter, op->name() + "/" + std::string(dtype_name(dt))))
        continue;
      conf::CaseSet set(20261122, op->name(), dt);
      info.generate(set);
      for (const conf::Case& c : set.cases())
        if (input_elements(c) <= kMaxElements) run_case(tg, forms, c, dt, report);
    }
  }
  return report;
}

}  // namespace plexus::parity
