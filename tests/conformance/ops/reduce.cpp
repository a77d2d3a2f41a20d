// Conformance cases of the reductions: sum, mean, amax, amin, argmax, argmin.
//
// Every op runs over the same table of shapes (dim None, one dim, several,
// negative and unsorted dims, keepdim, 0-d, empty, non-contiguous layouts,
// a large and a stress case), then cases of its own: exact-valued inputs,
// special values, dtype conversions and the errors the op must raise.
#include "reference/reduce.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

using DimList = std::vector<int64_t>;
using Dims = std::optional<DimList>;  // nullopt: dim=None

// One reduction shape: self's sizes and layout, the reduced dims, keepdim.
struct Shape {
  const char* name;
  ref::Sizes sizes;
  Dims dims;
  bool keepdim = false;
  uint32_t layout = Contiguous;
  uint32_t out_layout = Contiguous;  // of `out` in the out variant
};

// The shapes sum, mean, amax and amin run over.
struct TableEntry {
  Shape shape;
  bool empty_reduction = false;  // a reduced dim is empty: amax and amin must raise
  bool stress = false;
};
const std::vector<TableEntry>& reduce_table() {
  static const std::vector<TableEntry> t = {
      {{"0d", {}, std::nullopt}},
      {{"0d_dim0", {}, DimList{0}}},
      {{"0d_keepdim", {}, DimList{-1}, true}},
      {{"one", {1}, std::nullopt}},
      {{"empty", {0}, std::nullopt}, true},
      {{"empty_rows", {3, 0}, DimList{1}}, true},
      {{"empty_rows_keepdim", {3, 0}, DimList{-1}, true}, true},
      {{"empty_out", {0, 4}, DimList{1}}},
      {{"empty_cols", {0, 4}, DimList{0}}, true},
      {{"odd", {7}, DimList{0}}},
      {{"dim_none", {13, 17}, std::nullopt}},
      {{"dim_empty_list", {5, 7}, DimList{}}},
      {{"dim_none_keepdim", {5, 7}, std::nullopt, true}},
      {{"rows", {13, 17}, DimList{1}}},
      {{"cols", {13, 17}, DimList{0}}},
      {{"neg_keepdim", {13, 17}, DimList{-1}, true}},
      {{"3d_mid", {3, 5, 7}, DimList{1}}},
      {{"3d_outer", {3, 5, 7}, DimList{0, 2}}},
      {{"3d_neg_keepdim", {3, 5, 7}, DimList{-1, -3}, true}},
      {{"3d_unsorted", {3, 5, 7}, DimList{2, 0}}},
      {{"4d", {2, 3, 4, 5}, DimList{1, 3}, true}},
      {{"transposed_rows", {13, 17}, DimList{1}, false, Transposed}},
      {{"transposed_cols", {13, 17}, DimList{0}, false, Transposed}},
      {{"strided", {13, 17}, DimList{1}, false, Strided}},
      {{"pitched", {13, 17}, DimList{1}, false, Pitched}},
      {{"pitched_cols", {13, 17}, DimList{0}, false, Pitched}},
      {{"offset", {37}, std::nullopt, false, Offset}},
      {{"expanded", {13, 17}, DimList{0}, false, Expanded}},
      {{"mixed_layout", {5, 6, 7}, DimList{0, 2}, false, Transposed | Strided | Offset}},
      // A non-contiguous `out`: transposed, every other element, rows with gaps.
      {{"out_transposed", {5, 6, 7}, DimList{2}, false, Contiguous, Transposed}},
      {{"out_strided", {6, 9, 5}, DimList{1}, true, Contiguous, Strided}},
      {{"out_pitched", {6, 9, 5}, DimList{2}, false, Contiguous, Pitched}},
      {{"medium_cols", {100, 257}, DimList{0}}},
      {{"large", {383, 389}, std::nullopt}},
      // More outputs than one grid dimension launches (65535 blocks or workgroups).
      {{"many_rows", {65537 + 6, 3}, DimList{1}}},
      {{"stress", {64, 257}, DimList{1}}, false, true},
  };
  return t;
}


// How a case makes its self from its rng.
using Make = std::function<ref::Tensor(Rng&)>;
Make random_of(DType t, ref::Sizes sizes) {
  return [t, sizes](Rng& rng) { return wide(rng, t, sizes); };
}
Make small_integers_of(DType t, ref::Sizes sizes, int64_t lo, int64_t hi) {
  return [=](Rng& rng) { return small_integers(rng, t, sizes, lo, hi); };
}
Make fixed(ref::Tensor t) {
  return [t = std::move(t)](Rng&) { return t; };
}

Arg dims_arg(const Dims& d) {
  return d ? Arg(*d) : Arg(NoneArg{});
}

// ---- sum and mean ------------------------------------------------------------

// A float tensor whose rows reduce to special results in any order: NaN
// anywhere, infinities of one sign, inf - inf, overflow to inf (sum only: a
// mean of it depends on whether the kernel overflows on the way), subnormals.
ref::Tensor special_rows(DType dt, bool with_overflow) {
  const double nan = std::nan(""), inf = INFINITY, max = dtype_max(dt);
  const double sub = ulp_of(dt, 0), normal = sub / dtype_eps(dt);
  std::vector<double> v = {nan,  1,   2,   3, 1,      nan,  -inf, 2, inf,  1,    -3,   2,
                           -inf, -1,  5,   0, inf,    -inf, 1,    0, -0.0, -0.0, -0.0, -0.0,
                           sub,  sub, sub, 0, normal, -sub, 0,    0, max,  0,    0,    0};
  if (with_overflow) v.insert(v.end(), {max, max, 0, 0, -max, 1, -max, 0});
  return from_values(dt, {static_cast<int64_t>(v.size() / 4), 4}, v);
}

void sum_mean_cases(CaseSet& set, bool is_mean) {
  const DType dt = set.dtype();
  // Integer sums name their dtype: without it they compute in int64.
  const Arg dtype_arg = !is_mean && !is_floating(dt) && dt != DType::I64 ? Arg(dt) : Arg(NoneArg{});
  // A case reducing `self` over `dims`; `exact` when every partial sum is
  // exact in the dtype, so any order of addition gives the exact result.
  auto add = [&](const std::string& name, const Make& make, uint32_t layout, const Dims& dims,
                 bool keepdim, bool exact, Arg dtype = NoneArg{}) -> Case& {
    Case& c = set.add(name);
    if (std::holds_alternative<NoneArg>(dtype)) dtype = dtype_arg;
    c.tensor("self", make(c.rng), layout)
        .arg("dim", dims_arg(dims))
        .arg("keepdim", keepdim)
        .arg("dtype", dtype);
    std::vector<int64_t> d = dims.value_or(DimList{});
    c.ref([=](const Inputs& in) {
      const ref::Tensor& x = in["self"];
      Expected e = expect(is_mean ? ref::mean(x, d, keepdim, dt) : ref::sum(x, d, keepdim, dt));
      if (!exact && is_floating(dt)) {
        int64_t terms = ref::reduced_count(x.sizes, d);
        std::vector<double> s = ref::sum_abs(x, d);
        if (is_mean)
          for (double& v : s) v /= static_cast<double>(std::max<int64_t>(terms, 1));
        e.scale = accumulation_scale(dt, std::move(s), terms);
      }
      return e;
    });
    // Exact sums match exactly; an exact mean is one division: correctly
    // rounded, then (float16, bfloat16) rounded again, so within 1 ulp.
    c.tol = !exact ? kAccumulated : is_mean ? Tolerance{.ulps = 1} : Tolerance{};
    return c;
  };

  for (const TableEntry& e : reduce_table()) {
    const Shape& s = e.shape;
    Case& c = add(s.name, random_of(dt, s.sizes), s.layout, s.dims, s.keepdim, false);
    c.stress = e.stress;
    c.out_layout = s.out_layout;
  }

  // Small integers in [-3, 3], at most 64 terms: every partial sum is an
  // integer below 256, exact even in bfloat16. A kernel off by one ulp fails.
  struct ExactShape {
    const char* name;
    ref::Sizes sizes;
    Dims dims;
    uint32_t layout;
  };
  const ExactShape exact_shapes[] = {
      {"exact_all", {64}, std::nullopt, Contiguous},
      {"exact_rows", {37, 64}, DimList{1}, Contiguous},
      {"exact_cols", {61, 29}, DimList{0}, Transposed},
      {"exact_3d", {4, 5, 16}, DimList{0, 2}, Strided | Offset},
  };
  for (const ExactShape& x : exact_shapes)
    add(x.name, small_integers_of(dt, x.sizes, -3, 3), x.layout, x.dims, false, true);

  // Long reductions, contiguous and through a step-2 view, of values in
  // [0, 0.1]: the bound grows with log2(length), as pairwise or blocked
  // accumulation gives. A kernel adding one element at a time into one
  // accumulator (error growing with length) fails, on either layout.
  if (is_floating(dt)) {
    for (auto [name, layout] : {std::pair{"long", Contiguous}, std::pair{"long_strided", Strided}}) {
      Case& c = add(name, [dt](Rng& rng) { return random(rng, dt, {int64_t{1} << 20}, {0, 0.1}); },
                    layout, std::nullopt, false, false);
      c.ref([=](const Inputs& in) {
        const ref::Tensor& x = in["self"];
        Expected e = expect(is_mean ? ref::mean(x, {}, false, dt) : ref::sum(x, {}, false, dt));
        std::vector<double> s = ref::sum_abs(x, {});
        if (is_mean) s[0] /= static_cast<double>(x.numel());
        s[0] *= std::log2(static_cast<double>(x.numel())) *
                dtype_eps(dt == DType::F64 ? DType::F64 : DType::F32) / dtype_eps(dt);
        e.scale = std::move(s);
        return e;
      });
    }
  }

  if (is_floating(dt)) {
    add("special", fixed(special_rows(dt, !is_mean)), Contiguous, DimList{1}, false, true);
  } else {
    // The edge values of the dtype: sums wrap around.
    ref::Tensor edges = from_values(dt, {7, 5}, special_values(dt));
    add("special", fixed(edges), Contiguous, DimList{1}, false, true);
    add("special_cols", fixed(edges), Contiguous, DimList{0}, true, true);
  }

  // Inputs of another dtype, converted to the compute dtype by the dtype argument
  // (or, for sum of integers and bool, by the default int64).
  if (is_mean && dt == DType::F32)
    add("from_int", random_of(DType::I32, {9, 11}), Contiguous, DimList{1}, false, false, dt);
  if (!is_mean && dt == DType::F32)
    add("from_half", random_of(DType::F16, {9, 11}), Contiguous, DimList{1}, false, false, dt);
  if (!is_mean && dt == DType::I64) {
    add("from_int8", random_of(DType::I8, {300, 3}), Contiguous, DimList{0}, false, false);
    add("from_bool", random_of(DType::Bool, {6, 7}), Contiguous, std::nullopt, false, false);
  }

  // Dims naming one dim twice or beyond self's dims.
  Case& twice = set.add("error_dim_twice");
  twice.tensor("self", wide(twice.rng, dt, {3, 4}))
      .arg("dim", DimList{1, -1})
      .arg("dtype", dtype_arg);
  twice.expect_error = "more than once";
  Case& range = set.add("error_dim_range");
  range.tensor("self", wide(range.rng, dt, {3, 4}))
      .arg("dim", DimList{2})
      .arg("dtype", dtype_arg);
  range.expect_error = "";
}

// ---- amax and amin -------------------------------------------------------------

// Rows (reduced along dim 1) and columns (dim 0) with NaN in every position,
// infinities, signed zeros, subnormals and the extremes.
ref::Tensor extreme_special(DType dt) {
  if (!is_floating(dt)) return from_values(dt, {7, 5}, special_values(dt));
  const double nan = std::nan(""), inf = INFINITY, max = dtype_max(dt), sub = ulp_of(dt, 0);
  return from_values(dt, {9, 4}, {nan,  1,   2,    3, 1,   2,    nan,  3,    1,    2,    3,    nan,
                                  inf,  nan, -inf, 0, inf, 1,    -inf, 0,    -inf, -inf, -inf, -inf,
                                  -0.0, 0,   -0.0, 0, sub, -sub, 0,    -0.0, max,  -max, 1,    -1});
}

void extreme_cases(CaseSet& set, bool largest) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, const Make& make, uint32_t layout, const Dims& dims,
                 bool keepdim) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", make(c.rng), layout).arg("keepdim", keepdim);
    // dim is not optional here: [] (its default) reduces every dim.
    std::vector<int64_t> d = dims.value_or(DimList{});
    c.arg("dim", d);
    c.ref([=](const Inputs& in) {
      const ref::Tensor& x = in["self"];
      return expect(largest ? ref::amax(x, d, keepdim) : ref::amin(x, d, keepdim));
    });
    return c;  // picks an element: exact
  };
  for (const TableEntry& e : reduce_table()) {
    const Shape& s = e.shape;
    Case& c = add(s.name, random_of(dt, s.sizes), s.layout, s.dims, s.keepdim);
    c.stress = e.stress;
    c.out_layout = s.out_layout;
    // No element to pick: the op must raise.
    if (e.empty_reduction) c.expect_error = "cannot reduce";
  }
  // Few distinct values: many equal extremes.
  add("ties", small_integers_of(dt, {13, 17}, 0, 1), Contiguous, DimList{1}, false);
  add("special", fixed(extreme_special(dt)), Contiguous, DimList{1}, false);
  add("special_cols", fixed(extreme_special(dt)), Contiguous, DimList{0}, true);
  add("special_all", fixed(extreme_special(dt)), Transposed, std::nullopt, false);
  Case& dflt = set.add("dim_default");
  dflt.tensor("self", wide(dflt.rng, dt, {6, 7}));
  dflt.ref([largest](const Inputs& in) {
    const ref::Tensor& x = in["self"];
    return expect(largest ? ref::amax(x, {}, false) : ref::amin(x, {}, false));
  });
}

// ---- argmax and argmin ---------------------------------------------------------

void arg_extreme_cases(CaseSet& set, bool largest) {
  const DType dt = set.dtype();
  using Dim = std::optional<int64_t>;
  auto add = [&](const std::string& name, const Make& make, uint32_t layout, Dim dim,
                 bool keepdim) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", make(c.rng), layout)
        .arg("dim", dim ? Arg(*dim) : Arg(NoneArg{}))
        .arg("keepdim", keepdim);
    c.ref([=](const Inputs& in) {
      const ref::Tensor& x = in["self"];
      return expect(largest ? ref::argmax(x, dim, keepdim) : ref::argmin(x, dim, keepdim));
    });
    return c;  // indices: exact
  };
  struct ArgShape {
    const char* name;
    ref::Sizes sizes;
    Dim dim;
    bool keepdim = false;
    uint32_t layout = Contiguous;
    uint32_t out_layout = Contiguous;
  };
  const ArgShape shapes[] = {
      {"0d", {}, std::nullopt},
      {"0d_dim0", {}, 0},
      {"0d_keepdim", {}, -1, true},
      {"one", {1}, std::nullopt},
      {"odd", {7}, 0},
      {"flat", {13, 17}, std::nullopt},
      {"flat_keepdim", {13, 17}, std::nullopt, true},
      {"rows", {13, 17}, 1},
      {"cols", {13, 17}, 0},
      {"neg_keepdim", {13, 17}, -1, true},
      {"3d_mid", {3, 5, 7}, 1},
      {"3d_flat", {3, 5, 7}, std::nullopt},
      {"empty_out", {0, 5}, 1},
      {"empty_out_keepdim", {4, 0}, 0, true},
      {"transposed_rows", {13, 17}, 1, false, Transposed},
      {"transposed_flat", {13, 17}, std::nullopt, false, Transposed},
      {"strided", {13, 17}, 0, false, Strided},
      {"offset", {37}, std::nullopt, false, Offset},
      {"expanded", {13, 17}, 0, false, Expanded},
      {"mixed_layout", {5, 6, 7}, 2, true, Transposed | Strided | Offset},
      {"out_transposed", {5, 6, 7}, 2, false, Contiguous, Transposed},
      {"out_pitched", {6, 9, 5}, 2, false, Contiguous, Pitched},
      {"large", {383, 389}, std::nullopt},
      {"large_rows", {100, 257}, 1},
      {"stress", {64, 257}, 1},
  };
  for (const ArgShape& s : shapes) {
    Case& c = add(s.name, random_of(dt, s.sizes), s.layout, s.dim, s.keepdim);
    c.stress = std::string(s.name) == "stress";
    c.out_layout = s.out_layout;
  }
  // Few distinct values: the first of equal extremes wins.
  for (Dim d : {Dim{}, Dim{1}, Dim{0}}) {
    std::string name = d ? "ties_dim" + std::to_string(*d) : "ties_flat";
    add(name, small_integers_of(dt, {13, 17}, 0, 2), Contiguous, d, false);
  }
  add("special", fixed(extreme_special(dt)), Contiguous, 1, false);
  add("special_cols", fixed(extreme_special(dt)), Contiguous, 0, true);
  add("special_flat", fixed(extreme_special(dt)), Contiguous, std::nullopt, false);
  add("special_flat_transposed", fixed(extreme_special(dt)), Transposed, std::nullopt, false);
  // No element to pick: the op must raise.
  struct Bad {
    const char* name;
    ref::Sizes sizes;
    Dim dim;
  };
  for (const Bad& b :
       {Bad{"error_empty", {0}, std::nullopt}, Bad{"error_empty_flat", {0, 5}, std::nullopt},
        Bad{"error_empty_dim", {3, 0}, 1}}) {
    add(b.name, fixed(ref::Tensor(dt, b.sizes)), Contiguous, b.dim, false).expect_error =
        "cannot reduce";
  }
  add("error_dim_range", random_of(dt, {3, 4}), Contiguous, 2, false).expect_error = "";
}

}  // namespace

void add_reduce_ops(std::vector<OpInfo>& v) {
  v.push_back({"sum.IntList_out", [](CaseSet& s) { sum_mean_cases(s, false); }});
  v.push_back({"mean.out", [](CaseSet& s) { sum_mean_cases(s, true); }});
  v.push_back({"amax.out", [](CaseSet& s) { extreme_cases(s, true); }});
  v.push_back({"amin.out", [](CaseSet& s) { extreme_cases(s, false); }});
  v.push_back({"argmax.out", [](CaseSet& s) { arg_extreme_cases(s, true); }});
  v.push_back({"argmin.out", [](CaseSet& s) { arg_extreme_cases(s, false); }});
}

}  // namespace plexus::conformance
