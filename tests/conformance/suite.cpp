#include "suite.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace plexus::conformance {

// ---- dtype facts -----------------------------------------------------------------

int64_t dtype_min_int(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8: return 0;
    case DType::I8: return std::numeric_limits<int8_t>::min();
    case DType::I16: return std::numeric_limits<int16_t>::min();
    case DType::I32: return std::numeric_limits<int32_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}

int64_t dtype_max_int(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::U8: return 255;
    case DType::I8: return std::numeric_limits<int8_t>::max();
    case DType::I16: return std::numeric_limits<int16_t>::max();
    case DType::I32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

namespace {
struct FloatFormat {
  int digits;   // significand bits, the implicit one included
  int min_exp;  // exponent of the smallest normal value
  double max;
};
FloatFormat format_of(DType t) {
  switch (t) {
    case DType::F16: return {11, -14, 65504.0};
    case DType::BF16: return {8, -126, 3.3895313892515355e38};
    case DType::F32: return {24, -126, std::numeric_limits<float>::max()};
    default: return {53, -1022, std::numeric_limits<double>::max()};
  }
}
}  // namespace

double dtype_lowest(DType t) {
  return is_floating(t) ? -format_of(t).max : static_cast<double>(dtype_min_int(t));
}
double dtype_max(DType t) {
  return is_floating(t) ? format_of(t).max : static_cast<double>(dtype_max_int(t));
}
double dtype_eps(DType t) {
  return is_floating(t) ? std::ldexp(1.0, 1 - format_of(t).digits) : 0.0;
}

double ulp_of(DType t, double v) {
  FloatFormat f = format_of(t);
  v = std::fabs(v);
  int e = f.min_exp;
  if (v >= std::ldexp(1.0, f.min_exp) && std::isfinite(v)) e = std::ilogb(v);
  if (!std::isfinite(v)) e = static_cast<int>(std::ilogb(f.max));
  return std::ldexp(1.0, e - f.digits + 1);
}

// ---- values ----------------------------------------------------------------------

ref::Tensor random(Rng& rng, DType t, const ref::Sizes& sizes, Range r) {
  ref::Tensor out(t, sizes);
  for (int64_t k = 0; k < out.numel(); ++k) {
    if (t == DType::Bool) {
      out.set_int(k, rng.coin());
    } else if (is_floating(t)) {
      out.set_float(k, ref::round_to(t, rng.uniform(r.lo, r.hi)));
    } else {
      double lo = std::max(r.lo, dtype_lowest(t)), hi = std::min(r.hi, dtype_max(t));
      int64_t ilo = lo <= -9.2e18 ? dtype_min_int(t) : static_cast<int64_t>(std::ceil(lo));
      int64_t ihi = hi >= 9.2e18 ? dtype_max_int(t) : static_cast<int64_t>(std::floor(hi));
      out.set_int(k, rng.integer(ilo, std::max(ilo, ihi)));
    }
  }
  return out;
}

ref::Tensor small_integers(Rng& rng, DType t, const ref::Sizes& sizes, int64_t lo, int64_t hi) {
  ref::Tensor out(t, sizes);
  for (int64_t k = 0; k < out.numel(); ++k) {
    int64_t v = rng.integer(lo, hi);
    if (is_floating(t)) out.set_float(k, static_cast<double>(v));
    else out.set_int(k, v);
  }
  return out;
}

std::vector<double> special_values(DType t) {
  if (t == DType::Bool) return {0, 1};
  if (!is_floating(t)) {
    double lo = static_cast<double>(dtype_min_int(t)), hi = static_cast<double>(dtype_max_int(t));
    if (t == DType::U8) return {0, 1, 2, 127, 128, 254, 255};
    if (t == DType::I64) return {};  // not representable as doubles: see from_values
    return {lo, lo + 1, -1, 0, 1, hi - 1, hi};
  }
  FloatFormat f = format_of(t);
  double inf = std::numeric_limits<double>::infinity();
  double min_normal = std::ldexp(1.0, f.min_exp);
  double min_sub = std::ldexp(1.0, f.min_exp - f.digits + 1);
  return {std::nan(""), inf, -inf, 0.0, -0.0, min_sub, -min_sub, min_normal, f.max, -f.max,
          1.0, -1.0, 0.5, -2.5, 3.0};
}

ref::Tensor from_values(DType t, const ref::Sizes& sizes, const std::vector<double>& values) {
  ref::Tensor out(t, sizes);
  if (t == DType::I64 && values.empty()) {
    // int64's edge values do not fit in doubles: spelled out here.
    const int64_t edges[] = {std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::min() + 1, -1, 0, 1,
                             std::numeric_limits<int64_t>::max() - 1,
                             std::numeric_limits<int64_t>::max()};
    for (int64_t k = 0; k < out.numel(); ++k) out.set_int(k, edges[k % 7]);
    return out;
  }
  if (values.empty()) throw std::invalid_argument("from_values: no values");
  for (int64_t k = 0; k < out.numel(); ++k) {
    double v = values[static_cast<size_t>(k) % values.size()];
    if (is_floating(t)) out.set_float(k, ref::round_to(t, v));
    else out.set_int(k, static_cast<int64_t>(v));
  }
  return out;
}

std::string layout_str(uint32_t layout) {
  if (layout == Contiguous) return "contiguous";
  std::string s;
  auto add = [&](uint32_t bit, const char* name) {
    if (!(layout & bit)) return;
    if (!s.empty()) s += '+';
    s += name;
  };
  add(Transposed, "transposed");
  add(Strided, "strided");
  add(Expanded, "expanded");
  add(Offset, "offset");
  add(Pitched, "pitched");
  return s;
}

// ---- cases -----------------------------------------------------------------------

const ref::Tensor& Inputs::operator[](const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::invalid_argument("reference: no tensor argument '" + name + "'");
  return it->second;
}

const std::vector<ref::Tensor>& Inputs::list(const std::string& name) const {
  auto it = lists_.find(name);
  if (it == lists_.end()) throw std::invalid_argument("reference: no tensor list '" + name + "'");
  return it->second;
}

Case& Case::arg(std::string arg_name, Arg a) {
  for (auto& [n, v] : args)
    if (n == arg_name) {
      v = std::move(a);
      return *this;
    }
  args.emplace_back(std::move(arg_name), std::move(a));
  return *this;
}

Case& Case::tensor(std::string arg_name, ref::Tensor values, uint32_t layout) {
  return arg(std::move(arg_name), TensorArg{std::move(values), layout, {}});
}

Case& Case::alias(std::string arg_name, std::string of) {
  return arg(std::move(arg_name), TensorArg{{}, Contiguous, std::move(of)});
}

namespace {
uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;  // separator, so ("ab","c") != ("a","bc")
}
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

Case& CaseSet::add(std::string name) {
  for (const Case& c : cases_)
    if (c.name == name) throw std::invalid_argument("conformance: case '" + name + "' of " + op_ + " defined twice");
  uint64_t h = fnv1a(fnv1a(fnv1a(14695981039346656037ull, op_), std::string(dtype_name(dtype_))), name);
  Case c;
  c.name = std::move(name);
  c.rng = Rng(splitmix(h ^ splitmix(seed_)));
  cases_.push_back(std::move(c));
  return cases_.back();
}

// ---- the elementwise generator ---------------------------------------------------

void elementwise_cases(CaseSet& set, const ElementwiseSpec& spec) {
  const DType dt = set.dtype();
  const size_t n = spec.inputs.size();
  auto make = [&](Rng& rng, const ref::Sizes& sizes, size_t k) {
    return spec.make ? spec.make(rng, dt, sizes, k) : random(rng, dt, sizes);
  };
  // A case whose input k has sizes[k] (or sizes[0] for all when one is given)
  // and layouts[k]; nullptr when spec.only leaves it out.
  auto add = [&](const std::string& name, std::vector<ref::Sizes> sizes,
                 std::vector<uint32_t> layouts) -> Case* {
    if (!spec.only.empty() && std::find(spec.only.begin(), spec.only.end(), name) == spec.only.end())
      return nullptr;
    Case& c = set.add(spec.prefix + name);
    for (size_t k = 0; k < n; ++k) {
      const ref::Sizes& s = sizes.size() == 1 ? sizes[0] : sizes[k];
      uint32_t l = layouts.empty() ? Contiguous : layouts.size() == 1 ? layouts[0] : layouts[k];
      c.tensor(spec.inputs[k], make(c.rng, s, k), l);
    }
    for (const auto& [name_, a] : spec.args) c.arg(name_, a);
    c.reference = spec.reference;
    c.tol = spec.tol;
    c.inplace = spec.inplace;
    return &c;
  };
  add("0d", {{}}, {});
  add("empty", {{0}}, {});
  add("empty_2d", {{3, 0}}, {});
  add("one", {{1}}, {});
  if (Case* c = add("odd", {{7}}, {})) c->out_self = true;
  if (Case* c = add("prime_2d", {{13, 17}}, {})) c->out_self = true;
  add("3d", {{2, 3, 5}}, {});
  if (Case* c = add("large", {{262147}}, {})) c->inplace = false;
  if (n >= 2) {
    std::vector<ref::Sizes> lhs(n, ref::Sizes{13, 17}), rhs(n, ref::Sizes{17}), both(n, ref::Sizes{17}),
        zero_d(n, ref::Sizes{}), three(n, ref::Sizes{3, 1});
    lhs[0] = {1, 17};
    rhs[0] = {13, 17};
    both[0] = {13, 1};
    both[1] = {1, 17};
    zero_d[0] = {13, 17};
    three[0] = {2, 1, 5};
    add("bcast_lhs", lhs, {});
    add("bcast_rhs", rhs, {});
    add("bcast_both", both, {});
    add("bcast_0d", zero_d, {});
    add("bcast_3d", three, {});
  }
  if (Case* c = add("transposed", {{13, 17}}, {Transposed})) c->out_layout = Transposed;
  if (Case* c = add("strided", {{13, 17}}, {Strided})) c->out_layout = Strided;
  if (Case* c = add("pitched", {{13, 17}}, {Pitched})) c->out_layout = Pitched;
  if (Case* c = add("offset", {{37}}, {Offset})) c->out_layout = Offset;
  add("expanded", {{13, 17}}, {Expanded});
  if (n >= 2) {
    std::vector<uint32_t> rest(n, Expanded);
    rest[0] = Contiguous;
    add("expanded_rhs", {{13, 17}}, rest);
    std::vector<uint32_t> mixed(n, Strided | Offset);
    mixed[0] = Transposed | Offset;
    if (Case* c = add("mixed_layouts", {{9, 11}}, mixed)) c->out_layout = Strided | Offset;
  }
  if (spec.aliasing) {
    if (Case* c = add("aliased", {{5, 7}}, {})) {
      for (size_t k = 1; k < n; ++k) c->alias(spec.inputs[k], spec.inputs[0]);
      c->out_self = true;
    }
  }
  if (spec.special) {
    // Every special value against every other (first two inputs), the rest random.
    std::vector<double> sv = special_values(dt);
    int64_t s = dt == DType::I64 ? 7 : static_cast<int64_t>(sv.size());
    int64_t total = n >= 2 ? s * s : s;
    if (Case* c = add("special", {{total}}, {})) {
      for (size_t k = 0; k < std::min<size_t>(n, 2); ++k) {
        ref::Tensor base = from_values(dt, {s}, sv);
        ref::Tensor t(dt, {total});
        for (int64_t e = 0; e < total; ++e) {
          int64_t src = k == 0 ? e / (n >= 2 ? s : 1) % s : e % s;
          if (t.integral()) t.set_int(e, base.at_int(src));
          else t.set_float(e, base.at(src));
        }
        std::get<TensorArg>(c->args[k].second).values = std::move(t);
      }
    }
  }
  if (Case* c = add("stress", {{64, 257}}, {})) c->stress = true;
}

// ---- all families ----------------------------------------------------------------

std::vector<OpInfo> all_op_infos() {
  std::vector<OpInfo> v;
  add_copy_ops(v);
  add_binary_ops(v);
  add_unary_ops(v);
  add_compare_ops(v);
  add_reduce_ops(v);
  add_matmul_ops(v);
  add_softmax_ops(v);
  add_layer_norm_ops(v);
  add_conv_ops(v);
  add_pool_ops(v);
  add_embedding_ops(v);
  add_pointwise_ops(v);
  add_optim_ops(v);
  add_random_ops(v);
  add_shape_ops(v);
  add_loss_ops(v);
  add_matmul_composite_ops(v);
  return v;
}

}  // namespace plexus::conformance
