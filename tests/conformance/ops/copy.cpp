// Conformance cases of the copy ops: copy_ and fill_. Both exist only in
// place: self is written. Their kernels are looked up by self's dtype (the
// case set's), and copy_'s src keeps its own dtype, so a copy_ kernel must
// convert from every dtype.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/unary.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

constexpr DType kAllDTypes[] = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                                DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

// Conversions are exact, and keep the sign of a zero (-0.0 copies as -0.0).
constexpr Tolerance kExact = {.signed_zero = true};

// n floating values +-2^e, e uniform in [lo, hi], rounded to t.
ref::Tensor spread(Rng& rng, DType t, int64_t n, double lo, double hi) {
  ref::Tensor out(t, {n});
  for (int64_t k = 0; k < n; ++k) {
    double v = std::exp2(rng.uniform(lo, hi));
    out.set_float(k, ref::round_to(t, rng.coin() ? v : -v));
  }
  return out;
}

// log2 of a floating dtype's smallest subnormal and of its largest value.
double min_exp2(DType t) {
  return std::log2(ulp_of(t, 0));
}
double max_exp2(DType t) {
  return std::log2(dtype_max(t));
}

// Rows of n values of dtype s for a conversion to d: s's special values; s's
// whole range; small values (fractions, signs, zeros: truncation and
// bool); values around d's range (saturation and wrap-around, overflow to
// inf and rounding to subnormals or zero).
ref::Tensor conversion_values(Rng& rng, DType s, DType d, int64_t n) {
  std::vector<ref::Tensor> rows;
  rows.push_back(from_values(s, {n}, special_values(s)));
  if (is_floating(s)) {
    rows.push_back(spread(rng, s, n, min_exp2(s), max_exp2(s)));
    rows.push_back(random(rng, s, {n}, {-3, 3}));
    if (is_floating(d))
      rows.push_back(spread(rng, s, n, min_exp2(d) - 2, std::min(max_exp2(d) + 1, 1023.9)));
    else
      rows.push_back(random(rng, s, {n}, {1.5 * dtype_lowest(d) - 2, 1.5 * dtype_max(d) + 2}));
  } else {
    rows.push_back(random(rng, s, {n}, {-1e19, 1e19}));
    rows.push_back(random(rng, s, {n}, {-3, 3}));
    rows.push_back(random(rng, s, {n}, {1.5 * dtype_lowest(d) - 2, 1.5 * dtype_max(d) + 2}));
  }
  ref::Tensor out(s, {static_cast<int64_t>(rows.size()), n});
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t k = 0; k < n; ++k) {
      int64_t at = static_cast<int64_t>(r) * n + k;
      if (out.integral())
        out.set_int(at, rows[r].at_int(k));
      else
        out.set_float(at, rows[r].at(k));
    }
  return out;
}

// Floating values of dtype s next to, and exactly halfway between, values of
// the narrower floating dtype d: near 1, in the normal range, in d's subnormals,
// at d's overflow threshold (max + half an ulp is a tie that rounds to inf).
ref::Tensor rounding_values(DType s, DType d) {
  std::vector<double> v;
  double min_sub = ulp_of(d, 0), min_normal = min_sub / dtype_eps(d);
  double max = dtype_max(d), max_ulp = ulp_of(d, max);
  for (double b : {1.0, -1.5, 3.25, 1000.0, 1.5 * min_normal, 3 * min_sub, max / 2}) {
    double base = ref::round_to(d, b), u = ulp_of(d, base);
    for (int k = -3; k <= 3; ++k) v.push_back(base + k * u / 4);
    // One ulp of s off a tie: rounding twice (through float32) gets these wrong.
    for (double off : {-1.0, 1.0}) v.push_back(base + u / 2 + off * ulp_of(s, base));
  }
  for (double x : {min_sub / 2, 3 * min_sub / 2, min_sub / 4, max + max_ulp / 2,
                   max + max_ulp / 2 - ulp_of(s, max), max + max_ulp})
    for (double sign : {1.0, -1.0}) v.push_back(sign * x);
  ref::Tensor out(s, {static_cast<int64_t>(v.size())});
  for (size_t k = 0; k < v.size(); ++k)
    out.set_float(static_cast<int64_t>(k), ref::round_to(s, v[k]));
  return out;
}

// Integers that float16, bfloat16 and float32 round: ties to even, the
// overflow of float16, and ints that round twice on their way through float32.
ref::Tensor int_rounding_values(DType s) {
  const int64_t p60 = int64_t{1} << 60, p36 = int64_t{1} << 36;
  const std::vector<int64_t> v = {
      // float16: ties, its largest value, overflow.
      2049, 2051, 65519, 65520, -65520, 70000,
      // bfloat16 and float32: ties; 16842753 becomes a bfloat16 tie in float32.
      257, 259, 16842753, -16842753, 16777217, 16777219,
      // float32 from int64: ties and near-ties that a double cannot hold.
      p60 + p36, p60 + p36 + 1, -(p60 + p36 + 1), p60 - 1, std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min()};
  ref::Tensor out(s, {static_cast<int64_t>(v.size())});
  for (size_t k = 0; k < v.size(); ++k) out.set_int(static_cast<int64_t>(k), v[k]);
  return out;
}

// A dtype other than d to convert from in the layout cases.
DType other_than(DType d) {
  return d == DType::F32 ? DType::I32 : DType::F32;
}

void copy_cases(CaseSet& set) {
  const DType d = set.dtype();
  auto reference = [](const Inputs& in) {
    const ref::Tensor& self = in["self"];
    return expect(ref::copy(self.dtype, self.sizes, in["src"]));
  };
  // A case copying src into a self of `self_sizes` holding garbage.
  auto add = [&](const std::string& name, const ref::Sizes& self_sizes, uint32_t self_layout,
                 ref::Tensor src, uint32_t src_layout = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, d, self_sizes, {-100, 100}), self_layout);
    c.tensor("src", std::move(src), src_layout);
    c.ref(reference).tolerance(kExact);
    return c;
  };
  auto values = [&](Case& c, DType s, const ref::Sizes& sizes) {
    return is_floating(s) ? random(c.rng, s, sizes, {-300, 300})
                          : random(c.rng, s, sizes, {-1e19, 1e19});
  };
  // Every dtype to d.
  for (DType s : kAllDTypes) {
    Case& c = add(std::string("from_") + std::string(dtype_name(s)), {4, 41}, Contiguous, {});
    std::get<TensorArg>(c.args[1].second).values = conversion_values(c.rng, s, d, 41);
    // Rounding into float16, bfloat16 and float32, from wider dtypes.
    if (!is_floating(d) || d == DType::F64) continue;
    ref::Tensor r;
    if (is_floating(s) && s != d && (dtype_eps(s) < dtype_eps(d) || dtype_max(s) > dtype_max(d)))
      r = rounding_values(s, d);
    else if (s == DType::I32 || s == DType::I64)
      r = int_rounding_values(s);
    else
      continue;
    ref::Sizes sizes = r.sizes;
    add(std::string("round_from_") + std::string(dtype_name(s)), sizes, Contiguous, std::move(r));
  }
  // Shapes and layouts, with and without a conversion.
  const DType o = other_than(d);
  auto plain = [&](const std::string& name, const ref::Sizes& sizes, uint32_t self_layout,
                   uint32_t src_layout, DType s) -> Case& {
    Case& c = add(name, sizes, self_layout, {}, src_layout);
    std::get<TensorArg>(c.args[1].second).values = values(c, s, sizes);
    return c;
  };
  plain("0d", {}, Contiguous, Contiguous, d);
  plain("empty", {0}, Contiguous, Contiguous, d);
  plain("empty_2d", {3, 0}, Contiguous, Contiguous, o);
  plain("one", {1}, Contiguous, Contiguous, d);
  plain("prime_2d", {13, 17}, Contiguous, Contiguous, d);
  plain("3d", {2, 3, 5}, Contiguous, Contiguous, o);
  plain("large", {262147}, Contiguous, Contiguous, d);
  plain("large_convert", {262147}, Contiguous, Contiguous, o);
  plain("transposed_src", {13, 17}, Contiguous, Transposed, d);
  plain("transposed_self", {13, 17}, Transposed, Contiguous, d);
  plain("transposed_both", {3, 5, 7}, Transposed, Transposed, o);
  plain("strided", {13, 17}, Strided, Strided, d);
  plain("strided_convert", {13, 17}, Strided | Offset, Transposed | Strided, o);
  plain("offset", {37}, Offset, Offset, d);
  plain("expanded_src", {13, 17}, Contiguous, Expanded, d);
  plain("expanded_src_convert", {13, 17}, Transposed, Expanded | Offset, o);
  plain("stress", {64, 257}, Contiguous, Contiguous, o).stress = true;
  // A written tensor with no elements may have stride-0 dims: nothing is
  // written, nothing overlaps.
  plain("empty_expanded_self", {0, 5}, Expanded, Contiguous, d);
  // src broadcasts to self's shape.
  auto bcast = [&](const std::string& name, const ref::Sizes& self_sizes,
                   const ref::Sizes& src_sizes, uint32_t self_layout, DType s) {
    Case& c = add(name, self_sizes, self_layout, {});
    std::get<TensorArg>(c.args[1].second).values = values(c, s, src_sizes);
  };
  bcast("bcast_row", {13, 17}, {17}, Contiguous, d);
  bcast("bcast_col", {13, 17}, {13, 1}, Transposed, d);
  bcast("bcast_0d", {13, 17}, {}, Contiguous, d);
  bcast("bcast_0d_empty", {0, 3}, {}, Contiguous, o);
  bcast("bcast_3d", {2, 3, 5}, {3, 1}, Strided, o);
  // A tensor copied onto itself is unchanged.
  {
    Case& c = plain("aliased", {5, 7}, Contiguous, Contiguous, d);
    c.alias("src", "self");
  }
  // src must broadcast to self's shape: self never grows.
  auto error = [&](const std::string& name, const ref::Sizes& self_sizes,
                   const ref::Sizes& src_sizes) {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, d, self_sizes)).tensor("src", random(c.rng, d, src_sizes));
    c.expect_error = "broadcast";
  };
  error("bad_broadcast", {3, 4}, {5});
  error("src_larger", {4}, {2, 4});
  error("src_grows_self", {1, 4}, {3, 4});
  // As in PyTorch, even leading dims of size 1 may not add to self's rank.
  error("src_more_dims", {4, 6}, {1, 1, 6});
}

// fill_ with `value` (bool, int64 or double) as the reference sees it.
ref::Tensor value_tensor(const Scalar& v) {
  if (v.is_floating()) {
    ref::Tensor t(DType::F64, {});
    t.set_float(0, v.to_double());
    return t;
  }
  ref::Tensor t(v.is_bool() ? DType::Bool : DType::I64, {});
  t.set_int(0, v.to_int());
  return t;
}

void fill_cases(CaseSet& set) {
  const DType d = set.dtype();
  auto add = [&](const std::string& name, const ref::Sizes& sizes, uint32_t layout,
                 Scalar value) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, d, sizes, {-100, 100}), layout).arg("value", value);
    ref::Tensor v = value_tensor(value);
    c.ref([v](const Inputs& in) {
      const ref::Tensor& self = in["self"];
      return expect(ref::fill(self.dtype, self.sizes, v));
    });
    c.tolerance(kExact);
    return c;
  };
  // Every value kind; each converts as copy_ would convert it (integers wrap
  // into narrower integer dtypes and round into floating ones, floating
  // values round, -0.0 stays -0.0).
  const ref::Sizes s = {5, 7};
  add("bool_true", s, Contiguous, Scalar(true));
  add("bool_false", s, Contiguous, Scalar(false));
  const int64_t p60 = int64_t{1} << 60, p36 = int64_t{1} << 36;
  const std::pair<const char*, int64_t> ints[] = {
      {"int_0", 0},
      {"int_7", 7},
      {"int_neg3", -3},
      {"int_300", 300},
      {"int_65520", 65520},
      {"int_16842753", 16842753},
      {"int_2p40_plus_1", (int64_t{1} << 40) + 1},
      {"int_2p60_tie_plus_1", p60 + p36 + 1},
      {"int_min", std::numeric_limits<int64_t>::min()},
      {"int_max", std::numeric_limits<int64_t>::max()},
  };
  for (const auto& [name, value] : ints) add(name, s, Contiguous, Scalar(value));
  const double inf = std::numeric_limits<double>::infinity();
  const std::pair<const char*, double> floats[] = {
      {"float_0.1", 0.1},
      {"float_neg2.5", -2.5},
      {"float_neg_zero", -0.0},
      {"float_nan", std::numeric_limits<double>::quiet_NaN()},
      {"float_inf", inf},
      {"float_neg_inf", -inf},
      {"float_subnormal", 1e-40},
      {"float_tiny", 1e-310},
      {"float_huge", 1e300},
      {"float_tie", 1 + std::ldexp(1.0, -11)},
      // Just above a float16 and a bfloat16 tie: rounding through float32 ties.
      {"float_above_tie", 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)},
      {"float_above_bf16_tie", 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)},
      {"float_65520", 65520},
  };
  if (is_floating(d)) {
    for (const auto& [name, value] : floats) add(name, s, Contiguous, Scalar(value));
  } else {
    // A floating value cannot fill an integer or bool tensor, even a whole one.
    for (double value : {1.5, 2.0}) {
      Case& c = set.add(value == 2.0 ? "float_whole_error" : "float_error");
      c.tensor("self", random(c.rng, d, {4})).arg("value", Scalar(value));
      c.expect_error = "cannot fill";
    }
  }
  // Shapes and layouts.
  const Scalar v = d == DType::Bool ? Scalar(true)
                   : is_floating(d) ? Scalar(-1.25)
                                    : Scalar(int64_t{5});
  add("0d", {}, Contiguous, v);
  add("empty", {0}, Contiguous, v);
  add("empty_2d", {3, 0}, Contiguous, v);
  add("one", {1}, Contiguous, v);
  add("prime_2d", {13, 17}, Contiguous, v);
  add("transposed", {13, 17}, Transposed | Offset, v);
  add("strided", {13, 17}, Strided, v);
  add("strided_3d", {3, 5, 7}, Transposed | Strided, v);
  add("offset", {37}, Offset, v);
  add("large", {262147}, Contiguous, v);
  // Filling is idempotent: an expanded self (elements sharing memory) is
  // fine, as in PyTorch; so is an empty one with stride-0 dims.
  add("expanded", {13, 17}, Expanded, v);
  add("expanded_offset", {5, 3, 7}, Expanded | Offset, v);
  add("empty_expanded", {0, 5}, Expanded, v);
  add("stress", {64, 257}, Contiguous, v).stress = true;
}

}  // namespace

void add_copy_ops(std::vector<OpInfo>& v) {
  v.push_back({"copy_", copy_cases});
  v.push_back({"fill_.Scalar", fill_cases});
}

}  // namespace plexus::conformance
