#include "engine.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "plexus/autograd.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/half.h"
#include "plexus/storage.h"
#include "plexus/value.h"

namespace plexus::conformance {

namespace {

// ---- bytes <-> values ------------------------------------------------------------

void encode(DType t, const ref::Tensor& v, int64_t k, uint8_t* dst) {
  auto put = [&](auto x) { std::memcpy(dst, &x, sizeof x); };
  switch (t) {
    case DType::Bool: put(static_cast<uint8_t>(v.at_int(k) != 0)); break;
    case DType::U8: put(static_cast<uint8_t>(v.at_int(k))); break;
    case DType::I8: put(static_cast<int8_t>(v.at_int(k))); break;
    case DType::I16: put(static_cast<int16_t>(v.at_int(k))); break;
    case DType::I32: put(static_cast<int32_t>(v.at_int(k))); break;
    case DType::I64: put(v.at_int(k)); break;
    case DType::F16: put(double_to_half_bits(v.at(k))); break;
    case DType::BF16: put(double_to_bfloat16_bits(v.at(k))); break;
    case DType::F32: put(static_cast<float>(v.at(k))); break;
    case DType::F64: put(v.at(k)); break;
  }
}

// Element k of `out` from the bytes at src. A bool byte other than 0 or 1 is
// kept as read, so that it fails the comparison instead of reading as true.
void decode(DType t, const uint8_t* src, ref::Tensor& out, int64_t k) {
  auto get = [&](auto x) {
    std::memcpy(&x, src, sizeof x);
    return x;
  };
  auto set_i = [&](int64_t v) {
    out.i[static_cast<size_t>(k)] = v;
    out.f[static_cast<size_t>(k)] = static_cast<double>(v);
  };
  switch (t) {
    case DType::Bool: set_i(get(uint8_t{})); break;
    case DType::U8: set_i(get(uint8_t{})); break;
    case DType::I8: set_i(get(int8_t{})); break;
    case DType::I16: set_i(get(int16_t{})); break;
    case DType::I32: set_i(get(int32_t{})); break;
    case DType::I64: set_i(get(int64_t{})); break;
    case DType::F16: out.set_float(k, half_bits_to_float(get(uint16_t{}))); break;
    case DType::BF16: out.set_float(k, bfloat16_bits_to_float(get(uint16_t{}))); break;
    case DType::F32: out.set_float(k, get(float{})); break;
    case DType::F64: out.set_float(k, get(double{})); break;
  }
}

ref::Sizes to_sizes(IntArrayRef a) { return ref::Sizes(a.begin(), a.end()); }

// The first dim an Expanded layout broadcasts: the first of size > 1; -1 when none.
int64_t expanded_dim(const ref::Sizes& s) {
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] > 1) return static_cast<int64_t>(d);
  return -1;
}


}  // namespace

// Places logical `values` on the target in `layout`, with `pad` poison
// elements before and after; everything outside the view is poison too.
Placed place(const Target& tg, const ref::Tensor& values, uint32_t layout, int64_t pad, Rng& poison) {
  const ref::Sizes& S = values.sizes;
  const size_t nd = S.size();
  const DType dt = values.dtype;
  std::vector<size_t> perm(nd);
  for (size_t j = 0; j < nd; ++j) perm[j] = (layout & Transposed) && nd >= 2 ? nd - 1 - j : j;
  int64_t e = (layout & Expanded) ? expanded_dim(S) : -1;
  int64_t step = (layout & Strided) && nd >= 1 ? 2 : 1;
  // Physical (stored) sizes, innermost last; the innermost one holds `step` times as many.
  ref::Sizes P(nd);
  for (size_t j = 0; j < nd; ++j) P[j] = static_cast<int64_t>(perm[j]) == e ? 1 : S[perm[j]];
  if (nd >= 1) P[nd - 1] *= step;
  if ((layout & Pitched) && nd >= 2) P[nd - 1] += 3;  // a gap of 3 elements after each row
  ref::Sizes ps = ref::contiguous_strides(P);
  ref::Sizes L(nd);
  for (size_t j = 0; j < nd; ++j) L[perm[j]] = (j == nd - 1) ? step : ps[j];
  if (e >= 0) L[static_cast<size_t>(e)] = 0;
  int64_t offset = pad + ((layout & Offset) ? 3 : 0);
  int64_t stored = ref::numel_of(S) == 0 ? 0 : ref::numel_of(P);
  int64_t total = offset + stored + pad;
  const size_t isz = itemsize(dt);

  Placed p;
  p.bytes.resize(static_cast<size_t>(total) * isz);
  for (auto& b : p.bytes) b = static_cast<uint8_t>(poison.bits());
  p.covered.assign(static_cast<size_t>(total), false);
  ref::for_each_index(S, [&](const ref::Sizes& idx, int64_t flat) {
    int64_t off = offset;
    for (size_t d = 0; d < nd; ++d) off += idx[d] * L[d];
    encode(dt, values, flat, p.bytes.data() + static_cast<size_t>(off) * isz);
    p.covered[static_cast<size_t>(off)] = true;
  });
  int64_t n = total;
  Tensor storage = empty(IntArrayRef(&n, 1), TensorOptions(dt, tg.device));
  if (!p.bytes.empty())
    tg.backend->copy_from_host(tg.device.index, storage.storage()->data(), 0, p.bytes.data(),
                               p.bytes.size());
  p.view = storage.as_strided(IntArrayRef(S.data(), S.size()), IntArrayRef(L.data(), L.size()), offset);
  return p;
}

std::vector<uint8_t> read_storage(const Target& tg, const Tensor& t) {
  const Storage& st = t.storage();
  std::vector<uint8_t> bytes(st->nbytes());
  if (!bytes.empty()) {
    if (t.device() != tg.device)
      throw std::runtime_error("the result is on " + t.device().str() + ", expected " + tg.device.str());
    tg.backend->copy_to_host(tg.device.index, bytes.data(), st->data(), 0, bytes.size());
  }
  return bytes;
}

// The logical values of view `t` from its storage's bytes.
ref::Tensor decode_view(const Tensor& t, const std::vector<uint8_t>& bytes) {
  ref::Tensor out(t.dtype(), to_sizes(t.sizes()));
  const size_t isz = t.itemsize();
  ref::Sizes strides = to_sizes(t.strides());
  ref::for_each_index(out.sizes, [&](const ref::Sizes& idx, int64_t flat) {
    int64_t off = t.storage_offset();
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    size_t at = static_cast<size_t>(off) * isz;
    if (off < 0 || at + isz > bytes.size())
      throw std::runtime_error(fmt::format("element at flat index {} lies outside its storage", flat));
    decode(t.dtype(), bytes.data() + at, out, flat);
  });
  return out;
}

namespace {

// The storage elements outside the view that changed; "" when none did.
std::string changed_outside(const Placed& p, const std::vector<uint8_t>& now, size_t isz) {
  int64_t count = 0, first = -1;
  for (size_t e = 0; e < p.covered.size(); ++e) {
    if (p.covered[e]) continue;
    if (std::memcmp(p.bytes.data() + e * isz, now.data() + e * isz, isz) != 0) {
      if (first < 0) first = static_cast<int64_t>(e);
      ++count;
    }
  }
  if (!count) return "";
  return fmt::format("{} storage element(s) outside the view were written (first: storage element {}, view starts at {})",
                     count, first, p.view.storage_offset());
}

std::string format_value(const ref::Tensor& t, int64_t k) {
  if (t.integral()) return std::to_string(t.at_int(k));
  return fmt::format("{:.9g}", t.at(k));
}

std::string index_str(const ref::Sizes& sizes, int64_t flat) {
  ref::Sizes idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  return ref::sizes_str(idx);
}

// ---- boxing ----------------------------------------------------------------------


Value number_value(const SchemaType& type, double d, int64_t i, bool is_int, Boxed& b) {
  if (type.is_list) {
    b.ints.emplace_back(static_cast<size_t>(type.list_size.value_or(1)), i);
    return Value::int_list(b.ints.back());
  }
  switch (type.base) {
    case BaseType::Scalar: return Value::scalar(is_int ? Scalar(i) : Scalar(d));
    case BaseType::Float: return Value::real(is_int ? static_cast<double>(i) : d);
    case BaseType::Bool: return Value::boolean(is_int ? i != 0 : d != 0);
    default: return Value::integer(is_int ? i : static_cast<int64_t>(d));
  }
}

Value default_value(const Argument& a, Boxed& b) {
  const DefaultValue& d = *a.default_value;
  if (std::holds_alternative<std::monostate>(d)) return Value();
  if (auto* x = std::get_if<bool>(&d)) {
    return a.type.base == BaseType::Scalar ? Value::scalar(Scalar(*x)) : Value::boolean(*x);
  }
  if (auto* x = std::get_if<int64_t>(&d)) return number_value(a.type, 0, *x, true, b);
  if (auto* x = std::get_if<double>(&d)) return number_value(a.type, *x, 0, false, b);
  if (auto* x = std::get_if<std::vector<int64_t>>(&d)) {
    b.ints.push_back(*x);
    return Value::int_list(b.ints.back());
  }
  const std::string& s = std::get<std::string>(d);
  if (a.type.base == BaseType::ScalarType) return Value::dtype(*dtype_from_name(s));
  b.strings.push_back(s);
  return Value::string(b.strings.back());
}

}  // namespace

// ---- op forms --------------------------------------------------------------------

OpForms forms_of(const Operator& kernel) {
  OpForms f;
  f.kernel = &kernel;
  if (kernel.kind() == OpKind::Direct) {
    // A direct op that writes several tensors runs as itself ("direct");
    // a direct composite (matmul, mse_loss) as its one functional form.
    if (kernel.check()) f.direct = &kernel;
    else f.functional = &kernel;
  }
  for (const Operator* op : Dispatcher::get().ops()) {
    if (&op->kernel_op() != &kernel || op->kind() == OpKind::Direct) continue;
    if (op->kind() == OpKind::Functional) f.functional = op;
    else if (op->kind() == OpKind::Inplace) f.inplace = op;
    else if (op->kind() == OpKind::Out) f.out = op;
  }
  return f;
}

namespace {
const TensorArg* first_tensor(const Case& c) {
  for (const auto& [n, a] : c.args)
    if (auto* t = std::get_if<TensorArg>(&a)) return t;
  return nullptr;
}
// The second tensor argument and its name ("other"), or null.
const TensorArg* second_tensor(const Case& c, std::string* name = nullptr) {
  bool seen = false;
  for (const auto& [n, a] : c.args)
    if (auto* t = std::get_if<TensorArg>(&a)) {
      if (seen) {
        if (name) *name = n;
        return t;
      }
      seen = true;
    }
  return nullptr;
}
const TensorArg* tensor_arg(const Case& c, const std::string& name) {
  for (const auto& [n, a] : c.args)
    if (n == name) return std::get_if<TensorArg>(&a);
  return nullptr;
}
// True when `t` can hold the expected result in place.
bool fits(const TensorArg* t, const Case& c, const Expected* expected) {
  if (!t || !t->alias.empty() || (t->layout & Expanded)) return false;
  if (c.expect_error) return true;
  return expected && t->values.sizes == expected->values.sizes && t->values.dtype == expected->values.dtype;
}
}  // namespace

Inputs logical_inputs(const Case& c) {
  Inputs in;
  auto logical = [](const TensorArg& t) {
    ref::Tensor v = t.values;
    int64_t e = (t.layout & Expanded) ? expanded_dim(v.sizes) : -1;
    if (e < 0) return v;
    ref::Sizes src = v.sizes;
    ref::for_each_index(v.sizes, [&](const ref::Sizes& idx, int64_t flat) {
      ref::Sizes i0 = idx;
      i0[static_cast<size_t>(e)] = 0;
      int64_t from = ref::broadcast_index(src, src, i0);
      if (v.integral()) v.set_int(flat, t.values.at_int(from));
      else v.set_float(flat, t.values.at(from));
    });
    return v;
  };
  for (const auto& [name, a] : c.args) {
    if (auto* t = std::get_if<TensorArg>(&a)) {
      if (!t->alias.empty()) in.tensors_[name] = in[t->alias];
      else in.tensors_[name] = logical(*t);
    } else if (auto* l = std::get_if<std::vector<TensorArg>>(&a)) {
      auto& v = in.lists_[name];
      for (const TensorArg& e : *l) v.push_back(logical(e));
    }
  }
  return in;
}

std::string describe_inputs(const Case& c) {
  std::string s;
  auto one = [](const TensorArg& t) {
    std::string r = ref::sizes_str(t.values.sizes);
    if (t.layout != Contiguous) r += " " + layout_str(t.layout);
    return r;
  };
  for (const auto& [name, a] : c.args) {
    std::string part;
    if (auto* t = std::get_if<TensorArg>(&a)) {
      part = name + "=" + (t->alias.empty() ? one(*t) : "(same tensor as " + t->alias + ")");
    } else if (auto* l = std::get_if<std::vector<TensorArg>>(&a)) {
      part = name + "=[";
      for (size_t k = 0; k < l->size(); ++k) part += (k ? ", " : "") + one((*l)[k]);
      part += "]";
    } else {
      continue;
    }
    s += (s.empty() ? "" : ", ") + part;
  }
  return s;
}

// ---- comparison ------------------------------------------------------------------

Comparison compare(const Expected& expected, const ref::Tensor& got, const Tolerance& tol) {
  Comparison r;
  const ref::Tensor& want = expected.values;
  if (got.dtype != want.dtype || got.sizes != want.sizes) {
    r.ok = false;
    r.message = fmt::format("the result is {} {}, expected {} {}", dtype_name(got.dtype),
                            ref::sizes_str(got.sizes), dtype_name(want.dtype), ref::sizes_str(want.sizes));
    return r;
  }
  const DType dt = want.dtype;
  int64_t bad = 0, first = -1;
  double first_err = 0, first_allowed = 0, first_ulp = 0;
  for (int64_t k = 0; k < want.numel(); ++k) {
    bool ok;
    double err = 0, ulps = 0, allowed = 0;
    if (want.integral()) {
      int64_t w = ref::wrap_to(dt, want.at_int(k)), g = got.at_int(k);
      ok = w == g;
      err = ulps = std::fabs(static_cast<double>(g) - static_cast<double>(w));
    } else {
      double w = ref::round_to(dt, want.at(k)), g = got.at(k);
      if (std::isnan(w) || std::isnan(g)) {
        ok = std::isnan(w) && std::isnan(g);
        err = ulps = ok ? 0 : INFINITY;
      } else if (std::isinf(w) || std::isinf(g)) {
        ok = w == g;
        err = ulps = ok ? 0 : INFINITY;
      } else {
        err = std::fabs(g - w);
        double u = ulp_of(dt, w);
        ulps = err / u;
        allowed = std::max(tol.ulps * u, tol.atol + tol.rtol * std::fabs(w));
        if (!expected.scale.empty())
          allowed += tol.acc * dtype_eps(dt) * expected.scale[static_cast<size_t>(k)];
        ok = err <= allowed;
        if (ok && tol.signed_zero && w == 0 && g == 0 && std::signbit(w) != std::signbit(g)) {
          ok = false;
          ulps = 0;
        }
      }
    }
    if (std::isfinite(err)) r.max_abs_err = std::max(r.max_abs_err, err);
    else r.max_abs_err = INFINITY;
    if (std::isfinite(ulps)) r.max_ulp_err = std::max(r.max_ulp_err, ulps);
    else r.max_ulp_err = INFINITY;
    if (!ok) {
      if (first < 0) {
        first = k;
        first_err = err;
        first_allowed = allowed;
        first_ulp = ulps;
      }
      ++bad;
    }
  }
  if (bad) {
    r.ok = false;
    r.first_bad = first;
    std::string expected_text = want.integral() ? std::to_string(ref::wrap_to(dt, want.at_int(first)))
                                                : fmt::format("{:.9g}", ref::round_to(dt, want.at(first)));
    r.message = fmt::format("{} of {} elements differ; first at {} (flat {}): got {}, expected {}",
                            bad, want.numel(), index_str(want.sizes, first), first,
                            format_value(got, first), expected_text);
    if (!want.integral() && std::isfinite(first_err))
      r.message += fmt::format(" (error {:.3g} = {:.3g} ulp; allowed {:.3g})", first_err, first_ulp,
                               first_allowed);
  }
  return r;
}

// The inputs behind a mismatch at flat index k of the result: every input of
// the result's shape at the same index, and every one-element input (a
// scalar tensor); inputs of other shapes (broadcast rows, matmul operands)
// are not aligned with the result and are left out. "" when none qualifies.
std::string inputs_at(const std::map<std::string, Placed>& placed, const Placed* written,
                      const ref::Tensor& result, int64_t k) {
  if (k < 0) return "";
  std::string out;
  for (const auto& [name, p] : placed) {
    if (&p == written && name == "out") continue;  // an out= tensor's old values are noise
    ref::Tensor t = decode_view(p.view, p.bytes);   // the bytes it was given
    int64_t at = t.sizes == result.sizes ? k : (t.numel() == 1 ? 0 : -1);
    if (at < 0) continue;
    out += fmt::format("{}{}{}={}", out.empty() ? "" : ", ", name,
                       &p == written ? " (before the call)" : "", format_value(t, at));
  }
  return out.empty() ? "" : "; inputs there: " + out;
}

// ---- running one variant ---------------------------------------------------------

std::vector<std::string> variants_of(const OpForms& forms, const Case& c, const Expected* expected) {
  std::vector<std::string> v;
  if (forms.direct) return {"direct"};
  if (forms.functional) v.push_back("functional");
  if (forms.out) v.push_back("out");
  if (forms.inplace) {
    // Ops whose only form is in-place (copy_, fill_) always run it.
    bool only = !forms.functional && !forms.out;
    if (only || (c.inplace && fits(first_tensor(c), c, expected))) v.push_back("inplace");
  }
  if (forms.out && c.out_self && fits(first_tensor(c), c, expected)) v.push_back("out_self");
  // out = exactly the second input (add_out(b, a, b)): elementwise ops allow it too.
  if (forms.out && c.out_self && forms.kernel->elementwise() && fits(second_tensor(c), c, expected))
    v.push_back("out_other");
  return v;
}



Placed& PreparedCall::tensor_named(const Case& c, const std::string& name) {
  const TensorArg* t = tensor_arg(c, name);
  return placed.at(t && !t->alias.empty() ? t->alias : name);
}

void prepare_call(const Target& tg, const Operator& op_ref, const Case& c,
                  const std::string& variant, const Expected* expected, Rng& poison,
                  PreparedCall& call) {
  const Operator* op = &op_ref;
  const Schema& schema = op->schema();

  // Tensor arguments in device memory, by name.
  // (placed from their logical values: an Expanded layout stores index 0 once),
  // between poison elements, so that a write past an in-place self shows.
  constexpr int64_t kInputPad = 4;
  Inputs logical = logical_inputs(c);
  std::map<std::string, Placed>& placed = call.placed;
  std::map<std::string, std::vector<Placed>>& placed_lists = call.placed_lists;
  for (const auto& [name, a] : c.args) {
    if (auto* t = std::get_if<TensorArg>(&a)) {
      if (t->alias.empty()) placed[name] = place(tg, logical[name], t->layout, kInputPad, poison);
    } else if (auto* l = std::get_if<std::vector<TensorArg>>(&a)) {
      const std::vector<ref::Tensor>& values = logical.list(name);
      std::vector<Placed>& list = placed_lists[name];  // exists even when the list is empty
      for (size_t k = 0; k < l->size(); ++k) list.push_back(place(tg, values[k], (*l)[k].layout, kInputPad, poison));
    }
  }
  auto tensor_named = [&](const std::string& name) -> Placed& { return call.tensor_named(c, name); };

  // The written tensor: out (padded with poison on both sides), or self.
  std::string& written_name = call.written_name;
  std::optional<Placed>& out = call.out;
  if (variant == "out") {
    if (c.expect_error) {
      ref::Tensor garbage = random(poison, DType::F32, {1});
      out = place(tg, garbage, Contiguous, 8, poison);
    } else {
      ref::Tensor garbage = random(poison, expected->values.dtype, expected->values.sizes, {-1e4, 1e4});
      out = place(tg, garbage, c.out_layout, 8, poison);
    }
  } else if (variant == "out_other") {
    second_tensor(c, &written_name);
  } else {
    for (const auto& [name, a] : c.args)
      if (std::holds_alternative<TensorArg>(a)) {
        written_name = name;
        break;
      }
  }

  Boxed& b = call.b;
  int written = op->written_arg();
  for (size_t k = 0; k < schema.arguments.size(); ++k) {
    const Argument& sa = schema.arguments[k];
    const Arg* given = nullptr;
    for (const auto& [name, a] : c.args)
      if (name == sa.name) given = &a;
    if (static_cast<int>(k) == written &&
        (variant == "out" || variant == "out_self" || variant == "out_other")) {
      b.tensors.push_back(variant == "out" ? out->view : tensor_named(written_name).view);
      b.values.push_back(Value::tensor(b.tensors.back()));
      continue;
    }
    if (!given) {
      if (!sa.default_value)
        throw std::logic_error("case gives no value for argument '" + sa.name + "' of " + op->name());
      b.values.push_back(default_value(sa, b));
      continue;
    }
    const Arg& a = *given;
    if (std::holds_alternative<NoneArg>(a)) {
      b.values.push_back(Value());
    } else if (std::holds_alternative<TensorArg>(a)) {
      b.tensors.push_back(tensor_named(sa.name).view);
      b.values.push_back(Value::tensor(b.tensors.back()));
    } else if (std::holds_alternative<std::vector<TensorArg>>(a)) {
      std::vector<Tensor> ts;
      for (const Placed& p : placed_lists.at(sa.name)) ts.push_back(p.view);
      b.lists.push_back(std::move(ts));
      b.values.push_back(Value::tensor_list(b.lists.back()));
    } else if (auto* s = std::get_if<Scalar>(&a)) {
      b.values.push_back(Value::scalar(*s));
    } else if (auto* i = std::get_if<int64_t>(&a)) {
      b.values.push_back(number_value(sa.type, 0, *i, true, b));
    } else if (auto* d = std::get_if<double>(&a)) {
      b.values.push_back(number_value(sa.type, *d, 0, false, b));
    } else if (auto* x = std::get_if<bool>(&a)) {
      b.values.push_back(sa.type.base == BaseType::Scalar ? Value::scalar(Scalar(*x)) : Value::boolean(*x));
    } else if (auto* l = std::get_if<std::vector<int64_t>>(&a)) {
      b.ints.push_back(*l);
      b.values.push_back(Value::int_list(b.ints.back()));
    } else if (auto* str = std::get_if<std::string>(&a)) {
      b.strings.push_back(*str);
      b.values.push_back(Value::string(b.strings.back()));
    } else if (auto* t = std::get_if<DType>(&a)) {
      b.values.push_back(Value::dtype(*t));
    }
  }
}

namespace {

// Runs one call of the op, catching what it throws into `error`: a plexus
// error's message, or a note that another exception escaped. Under
// --composites, a composite built from kernels this plugin lacks (or one that
// declined these arguments) cannot run here: a gap in coverage, not a wrong
// result; r is then Unsupported and the result false.
template <typename Call>
bool guarded_call(const Target& tg, const Case& c, Result& r, std::string& error, Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    error = e.what();
    if (error.empty()) error = "(an error with an empty message)";
    if (tg.composites && e.code() == ErrorCode::Unsupported && !c.expect_error) {
      r.status = Status::Unsupported;
      r.message = "the composite cannot run on this plugin: " + error;
      return false;
    }
  } catch (const std::exception& e) {
    error = std::string("a non-plexus exception escaped: ") + e.what();
  }
  return true;
}

// The "direct" variant: one call of a direct op that writes several tensors;
// every written tensor (and list element) is read back and compared with the
// reference's value for it, the bytes around it must not change, and the
// tensors it reads must be left as they were.
void run_direct(const Target& tg, const Operator& op, const Case& c, const Expected* expected,
                Result& r) {
  Rng poison(c.rng);
  poison.bits();
  PreparedCall prepared;
  prepare_call(tg, op, c, "direct", expected, poison, prepared);
  std::string error;
  if (!guarded_call(tg, c, r, error, [&] { Dispatcher::get().call(op, prepared.b.values); }))
    return;
  if (c.expect_error) {
    bool ok = !error.empty() && error.find(*c.expect_error) != std::string::npos;
    r.status = ok ? Status::Pass : Status::Fail;
    if (!ok) r.message = "expected an error mentioning '" + *c.expect_error + "', got: " +
                         (error.empty() ? "a result" : error);
    return;
  }
  if (!error.empty()) {
    r.status = Status::Fail;
    r.message = "the call failed: " + error;
    return;
  }
  std::vector<std::string> problems;
  auto check = [&](const std::string& name, const Placed& p) {
    std::vector<uint8_t> now = read_storage(tg, p.view);
    auto it = expected->written.find(name);
    if (it == expected->written.end()) {
      if (now != p.bytes) problems.push_back("input '" + name + "' was modified");
      return;
    }
    Comparison cmp = compare(Expected{it->second, {}, {}}, decode_view(p.view, now), c.tol);
    r.max_abs_err = std::max(r.max_abs_err, cmp.max_abs_err);
    r.max_ulp_err = std::max(r.max_ulp_err, cmp.max_ulp_err);
    if (!cmp.ok) problems.push_back(name + ": " + cmp.message);
    std::string w = changed_outside(p, now, p.view.itemsize());
    if (!w.empty()) problems.push_back(name + ": " + w);
  };
  for (const auto& [name, p] : prepared.placed) check(name, p);
  for (const auto& [name, ps] : prepared.placed_lists)
    for (size_t k = 0; k < ps.size(); ++k) check(fmt::format("{}[{}]", name, k), ps[k]);
  r.status = problems.empty() ? Status::Pass : Status::Fail;
  for (size_t k = 0; k < problems.size(); ++k) r.message += (k ? "; " : "") + problems[k];
}

}  // namespace

void run_variant(const Target& tg, const OpForms& forms, const Case& c, const std::string& variant,
                 const Expected* expected, Result& r) {
  if (variant == "direct") return run_direct(tg, *forms.direct, c, expected, r);
  const Operator* op = variant == "functional" ? forms.functional
                       : variant == "inplace"  ? forms.inplace
                                               : forms.out;
  if (!op) throw std::logic_error("no form for variant " + variant);
  Rng poison(c.rng);  // a copy: the same poison bytes in every variant
  poison.bits();
  PreparedCall prepared;
  prepare_call(tg, *op, c, variant, expected, poison, prepared);
  Boxed& b = prepared.b;
  std::map<std::string, Placed>& placed = prepared.placed;
  std::map<std::string, std::vector<Placed>>& placed_lists = prepared.placed_lists;
  std::optional<Placed>& out = prepared.out;
  const std::string& written_name = prepared.written_name;
  auto tensor_named = [&](const std::string& name) -> Placed& {
    return prepared.tensor_named(c, name);
  };

  // The call.
  Tensor result;
  std::string error;
  if (!guarded_call(tg, c, r, error, [&] { result = Dispatcher::get().call(*op, b.values); }))
    return;
  if (c.expect_error) {
    if (error.empty()) {
      r.status = Status::Fail;
      r.message = "expected an error" + (c.expect_error->empty() ? "" : " mentioning '" + *c.expect_error + "'") +
                  ", but the call returned a result";
    } else if (!c.expect_error->empty() && error.find(*c.expect_error) == std::string::npos) {
      r.status = Status::Fail;
      r.message = "the error should mention '" + *c.expect_error + "': " + error;
    } else {
      r.status = Status::Pass;
    }
    return;
  }
  if (!error.empty()) {
    r.status = Status::Fail;
    r.message = "the call failed: " + error;
    return;
  }

  // The written tensor, read back.
  const Tensor* target_tensor = &result;
  const Placed* target_placed = nullptr;
  if (variant == "out") {
    target_tensor = &out->view;
    target_placed = &*out;
  } else if (variant != "functional") {
    target_placed = &tensor_named(written_name);
    target_tensor = &target_placed->view;
  }
  std::vector<std::string> problems;
  if (variant != "functional" &&
      (result.storage().get() != target_tensor->storage().get() ||
       result.storage_offset() != target_tensor->storage_offset() ||
       to_sizes(result.sizes()) != to_sizes(target_tensor->sizes())))
    problems.push_back("the call did not return the tensor it wrote");
  std::vector<uint8_t> now = read_storage(tg, *target_tensor);
  ref::Tensor got = decode_view(*target_tensor, now);
  Comparison cmp = compare(*expected, got, c.tol);
  r.max_abs_err = cmp.max_abs_err;
  r.max_ulp_err = cmp.max_ulp_err;
  if (!cmp.ok) problems.push_back(cmp.message + inputs_at(placed, target_placed, got, cmp.first_bad));
  if (target_placed) {
    std::string w = changed_outside(*target_placed, now, target_tensor->itemsize());
    if (!w.empty()) problems.push_back((variant == "out" ? "out: " : "self: ") + w);
  }
  // Inputs must be left as they were.
  for (const auto& [name, p] : placed) {
    if (target_placed == &p) continue;
    std::vector<uint8_t> after = read_storage(tg, p.view);
    if (after != p.bytes) problems.push_back("input '" + name + "' was modified");
  }
  for (const auto& [name, ps] : placed_lists)
    for (size_t k = 0; k < ps.size(); ++k)
      if (read_storage(tg, ps[k].view) != ps[k].bytes)
        problems.push_back(fmt::format("input '{}[{}]' was modified", name, k));
  if (problems.empty()) {
    r.status = Status::Pass;
  } else {
    r.status = Status::Fail;
    for (size_t k = 0; k < problems.size(); ++k) r.message += (k ? "; " : "") + problems[k];
  }
}

}  // namespace plexus::conformance

namespace plexus::conformance {
namespace {

// The logical inputs moved by +-eps along the direction `dir` (per floating
// tensor argument), eps relative to each input's largest magnitude.
Inputs shifted(const Inputs& in, const std::map<std::string, ref::Tensor>& dir, double eps) {
  Inputs out = in;
  for (const auto& [name, v] : dir) {
    ref::Tensor& t = out.tensors_.at(name);
    t.dtype = DType::F64;  // the reference sees exact shifted values
    for (int64_t k = 0; k < t.numel(); ++k) t.set_float(k, t.at(k) + eps * v.at(k));
  }
  return out;
}

// The largest magnitude of the floating inputs (at least 1): step sizes scale with it.
double input_scale(const Inputs& in, const std::map<std::string, ref::Tensor>& dir) {
  double m = 1;
  for (const auto& [name, v] : dir)
    for (double x : in.tensors_.at(name).f) m = std::max(m, std::abs(x));
  return m;
}

bool all_finite(const Inputs& in) {
  for (const auto& [name, t] : in.tensors_)
    if (!t.integral())
      for (double x : t.f)
        if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

bool grad_applies(const OpForms& forms, const Case& c, DType dt) {
  if (!forms.functional || c.expect_error || c.stress) return false;
  if (dt != DType::F32 && dt != DType::F64) return false;
  if (autograd::differentiable(*forms.functional) != autograd::Differentiable::Yes) return false;
  // Cases of exact or special values sit on kinks and ties (maximum, clamp,
  // relu) where a difference quotient and a derivative rule rightly differ.
  for (const char* skip : {"exact", "special", "ties", "error"})
    if (c.name.rfind(skip, 0) == 0) return false;
  // embedding's padding row gets no gradient although the forward reads it,
  // and scale_grad_by_freq scales gradients (PyTorch's conventions, not
  // derivatives): a difference quotient sees neither.
  for (const auto& [name, a] : c.args)
    if (name == "padding_idx" || name == "scale_grad_by_freq") return false;
  int64_t n = 0;
  bool floating = false;
  for (const auto& [name, a] : c.args) {
    if (auto* t = std::get_if<TensorArg>(&a)) {
      if (!t->alias.empty()) return false;
      n += t->values.numel();
      floating |= is_floating(t->values.dtype);
    } else if (std::holds_alternative<std::vector<TensorArg>>(a)) {
      return false;
    }
  }
  return floating && n > 0 && n <= 20000;
}

void run_grad(const Target& tg, const OpForms& forms, const Case& c, Result& r) {
  Rng poison(c.rng);
  poison.bits();
  Rng draw(c.rng);  // directions and seed gradients: the same in every run
  for (int k = 0; k < 3; ++k) draw.bits();
  PreparedCall call;
  prepare_call(tg, *forms.functional, c, "functional", nullptr, poison, call);
  Inputs logical = logical_inputs(c);
  if (!all_finite(logical)) {
    r.status = Status::Unsupported;  // counted as skipped, not as passed
    r.message = "no gradient check: an input is not finite";
    return;
  }
  // Every floating tensor argument requires grad; a random direction for each.
  std::map<std::string, ref::Tensor> dir;
  for (auto& [name, placed] : call.placed)
    if (is_floating(placed.view.dtype())) {
      placed.view.requires_grad_();
      dir.emplace(name, random(draw, DType::F64, to_sizes(placed.view.sizes()), {-1, 1}));
    }
  Tensor y, seed;
  std::string error;
  try {
    y = Dispatcher::get().call(*forms.functional, call.b.values);
    if (!y.requires_grad())
      throw std::runtime_error("the result does not require grad");
    ref::Tensor g = random(draw, y.dtype(), to_sizes(y.sizes()), {-1, 1});
    seed = place(tg, g, Contiguous, 0, poison).view;
    y.backward(seed);
  } catch (const std::exception& e) {
    r.status = Status::Fail;
    r.message = std::string("forward or backward failed: ") + e.what();
    return;
  }
  // Analytical: the sum over inputs of <gradient, direction>.
  double analytical = 0, scale = 0;
  for (const auto& [name, v] : dir) {
    Tensor gi = call.placed.at(name).view.grad();
    if (!gi.defined()) continue;  // no dependence: a zero gradient
    ref::Tensor got = decode_view(gi, read_storage(tg, gi));
    for (int64_t k = 0; k < got.numel(); ++k) {
      analytical += got.at(k) * v.at(k);
      scale += std::abs(got.at(k) * v.at(k));
    }
  }
  // Numerical: a central difference of the reference along the direction,
  // contracted with the same seed gradient.
  ref::Tensor seed_values = decode_view(seed, read_storage(tg, seed));
  // <seed, f(x + eps dir)>: the reference contracted with the seed gradient.
  auto contracted = [&](double eps) {
    ref::Tensor f = c.reference(shifted(logical, dir, eps)).values;
    double sum = 0;
    for (int64_t j = 0; j < seed_values.numel(); ++j) sum += seed_values.at(j) * f.at(j);
    return sum;
  };
  const double at_x = contracted(0);
  // float32 gradients carry float32 rounding of every term; float64 ones
  // are held to the difference quotient's own accuracy.
  const double rtol = y.dtype() == DType::F32 ? 2e-3 : 1e-5;
  auto allowed_for = [&](double n) { return rtol * (scale + std::abs(n)) + 1e-6; };
  // Central difference quotients at several steps, each kept when the
  // forward and the backward quotient agree: they differ at a kink (relu at 0,
  // a tie of maximum, a clamp bound) and where the reference's rounding (it
  // converts inputs to the dtype: float32 reductions) drowns a small step.
  // The gradient passes when it matches a kept quotient.
  const double unit = input_scale(logical, dir);
  const std::vector<double> steps = y.dtype() == DType::F32
                                        ? std::vector<double>{1e-5, 1e-4, 3e-4, 1e-3}
                                        : std::vector<double>{1e-6, 1e-5, 1e-4, 1e-3};
  double numerical = NAN;
  for (double step : steps) {
    const double h = step * unit;
    const double forward = (contracted(h) - at_x) / h, backward = (at_x - contracted(-h)) / h;
    const double fine = (forward + backward) / 2;
    if (!std::isfinite(fine) || !(std::abs(forward - backward) <= allowed_for(fine))) continue;
    if (std::isnan(numerical)) numerical = fine;
    if (std::abs(analytical - fine) <= allowed_for(fine)) {
      numerical = fine;
      break;
    }
  }
  const double allowed = allowed_for(numerical);
  // Where the reference is not defined (NaN) or not smooth at any of those
  // scales (a pole, a kink), or the true gradient is beyond the dtype's range,
  // a difference quotient proves nothing.
  if (!std::isfinite(numerical) || std::abs(numerical) > 1e-3 * dtype_max(y.dtype())) {
    r.status = Status::Unsupported;  // counted as skipped, not as passed
    r.message = "no gradient check: the reference is not smooth here";
    return;
  }
  r.max_abs_err = std::abs(analytical - numerical);
  if (std::isfinite(analytical) && r.max_abs_err <= allowed) {
    r.status = Status::Pass;
    return;
  }
  r.status = Status::Fail;
  r.message = fmt::format(
      "along a random direction the gradient gives {:.9g} but central differences of the "
      "reference give {:.9g} (difference {:.3g}, allowed {:.3g}; rule {})",
      analytical, numerical, r.max_abs_err, allowed,
      y.grad_fn() ? y.grad_fn()->name() : std::string("none"));
}

}  // namespace plexus::conformance
