// Conformance cases of the comparisons (eq, ne, lt, le, gt, ge, each with a
// tensor or a Scalar `other`) and of where. All of them are exact.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "reference/elementwise.h"
#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

// Half of the values from a few small integers, so that equal pairs are
// common; the rest anywhere (integers over the dtype's whole range).
ref::Tensor clustered(Rng& rng, DType t, const ref::Sizes& sizes) {
  ref::Tensor out = is_floating(t) || t == DType::Bool ? random(rng, t, sizes)
                                                       : random(rng, t, sizes, {-1e18, 1e18});
  for (int64_t k = 0; k < out.numel(); ++k) {
    if (!rng.coin()) continue;
    int64_t v = rng.integer(-2, 2);
    if (is_floating(t))
      out.set_float(k, static_cast<double>(v));
    else
      out.set_int(k, v);
  }
  return out;
}

// The dtype's special values once each (int64's edge values included).
ref::Tensor specials(DType t) {
  std::vector<double> sv = special_values(t);
  return from_values(t, {t == DType::I64 ? 7 : static_cast<int64_t>(sv.size())}, sv);
}

// ---- eq ... ge -------------------------------------------------------------------

struct CmpOp {
  const char* name;
  ref::Cmp cmp;
};
const CmpOp kCmpOps[] = {{"eq", ref::Cmp::Eq}, {"ne", ref::Cmp::Ne}, {"lt", ref::Cmp::Lt},
                         {"le", ref::Cmp::Le}, {"gt", ref::Cmp::Gt}, {"ge", ref::Cmp::Ge}};

// Both inputs converted to the compute dtype, then compared.
Expected compared(ref::Cmp cmp, DType dt, const ref::Tensor& a, const ref::Tensor& b) {
  return expect(ref::compare(cmp, ref::convert(a, dt), ref::convert(b, dt)));
}

void compare_tensor_cases(CaseSet& set, ref::Cmp cmp) {
  const DType dt = set.dtype();
  ElementwiseSpec s;
  s.inputs = {"self", "other"};
  s.make = tiled(
      [](Rng& rng, DType t, const ref::Sizes& sizes, size_t) { return clustered(rng, t, sizes); });
  s.reference = [cmp](const Inputs& in) {
    return expect(ref::compare(cmp, in["self"], in["other"]));
  };
  s.inplace = false;  // no in-place form: the result is bool
  elementwise_cases(set, s);
  if (dt != DType::F32) return;
  // An integer and a float32 tensor compare in float32, where 2^24 + 1 rounds to 2^24.
  Case& c = set.add("int64_and_float32");
  c.tensor("self", from_values(DType::I64, {6}, {16777217, 16777216, -3, 5, 2, 0}));
  c.tensor("other", from_values(DType::F32, {6}, {16777216, 16777216, -3.5, 5, 2.5, -0.0}));
  c.ref([cmp](const Inputs& in) { return compared(cmp, DType::F32, in["self"], in["other"]); });
}

void compare_scalar_cases(CaseSet& set, ref::Cmp cmp) {
  const DType dt = set.dtype();
  const bool fl = is_floating(dt);
  const double inf = std::numeric_limits<double>::infinity();
  // A Scalar of each kind that leaves the compute dtype as it is, on the
  // standard cases; on the special values also NaN, the infinities, -0, and
  // a number beyond float16 (there it converts to inf), or the dtype's edges.
  struct Pass {
    Scalar other;
    std::vector<std::string> only;  // empty: the main pass, every case
  };
  std::vector<std::string> some_special = kSome, special = {"special"};
  some_special.push_back("special");
  std::vector<Pass> passes;
  if (fl) {
    passes = {{Scalar(1.0), {}},
              {Scalar(int64_t{-2}), some_special},
              {Scalar(true), some_special},
              {Scalar(std::nan("")), special},
              {Scalar(inf), special},
              {Scalar(-inf), special},
              {Scalar(-0.0), special},
              {Scalar(1e6), special}};
  } else if (dt == DType::Bool) {
    passes = {{Scalar(true), {}}, {Scalar(false), some_special}};
  } else {
    passes = {{Scalar(int64_t{1}), {}},
              {Scalar(true), some_special},
              {Scalar(dtype_min_int(dt)), special},
              {Scalar(dtype_max_int(dt)), special}};
  }
  for (size_t p = 0; p < passes.size(); ++p) {
    const Scalar other = passes[p].other;
    ElementwiseSpec s;
    s.inputs = {"self"};
    s.args = {{"other", other}};
    s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t) {
      return clustered(rng, t, sizes);
    });
    // The Scalar converts to the compute dtype (as PyTorch's wrapped number does).
    s.reference = [cmp, other](const Inputs& in) {
      const ref::Tensor& self = in["self"];
      return expect(ref::compare(cmp, self, ref::scalar_tensor(self.dtype, other)));
    };
    s.inplace = false;
    if (p > 0) {
      s.prefix = "other_" + other.str() + "_";
      s.only = passes[p].only;
    }
    elementwise_cases(set, s);
  }
  if (fl) {
    // 0.1 rounds to the dtype: equal to its rounding, between its neighbours.
    Case& c = set.add("scalar_rounds");
    double x = ref::round_to(dt, 0.1), u = ulp_of(dt, x);
    c.tensor("self", from_values(dt, {3}, {x - u, x, x + u}));
    c.arg("other", Scalar(0.1)).ref([cmp, dt](const Inputs& in) {
      return expect(ref::compare(cmp, in["self"], ref::scalar_tensor(dt, Scalar(0.1))));
    });
  }
  if (dt == DType::F32) {
    // An integer tensor and a float Scalar compare in float32 (2^24 + 1 rounds).
    Case& c = set.add("int_self_float_scalar");
    c.tensor("self", from_values(DType::I64, {5}, {16777217, 16777216, 1, 2, -1}));
    c.arg("other", Scalar(16777216.0)).ref([cmp](const Inputs& in) {
      return compared(cmp, DType::F32, in["self"],
                      ref::scalar_tensor(DType::F32, Scalar(16777216.0)));
    });
    Case& h = set.add("int_self_half_scalar");
    h.tensor("self", random(h.rng, DType::I32, {13, 17}, {-3, 3}));
    h.arg("other", Scalar(0.5)).ref([cmp](const Inputs& in) {
      return compared(cmp, DType::F32, in["self"], ref::scalar_tensor(DType::F32, Scalar(0.5)));
    });
  }
  if (dt == DType::I64) {
    // A bool tensor and an integer Scalar compare in int64.
    Case& c = set.add("bool_self_int_scalar");
    c.tensor("self", random(c.rng, DType::Bool, {13, 17}));
    c.arg("other", Scalar(int64_t{1})).ref([cmp](const Inputs& in) {
      return compared(cmp, DType::I64, in["self"],
                      ref::scalar_tensor(DType::I64, Scalar(int64_t{1})));
    });
  }
}

// ---- where -----------------------------------------------------------------------

void where_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Exact: a value of self or of other, the sign of a zero included.
  const Tolerance exact = {.signed_zero = true};
  auto reference = [](const Inputs& in) {
    return expect(ref::where(in["condition"], in["self"], in["other"]));
  };
  ElementwiseSpec s;
  s.inputs = {"condition", "self", "other"};
  s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t k) {
    if (k == 0) return random(rng, DType::Bool, sizes);
    return is_floating(t) ? random(rng, t, sizes) : random(rng, t, sizes, {-1e18, 1e18});
  });
  s.reference = reference;
  s.tol = exact;
  s.inplace = false;   // no in-place form
  s.aliasing = false;  // the condition is bool: aliasing cases below
  s.special = false;   // likewise
  elementwise_cases(set, s);

  // Every special value, once from self and once from other.
  ref::Tensor sv = specials(dt);
  const int64_t n = sv.numel();
  ref::Tensor cond(DType::Bool, {2 * n}), self(dt, {2 * n}), other(dt, {2 * n});
  auto copy = [&sv](ref::Tensor& to, int64_t k, int64_t from) {
    if (sv.integral())
      to.set_int(k, sv.at_int(from));
    else
      to.set_float(k, sv.at(from));
  };
  for (int64_t k = 0; k < 2 * n; ++k) {
    int64_t here = k % n, next = (k + 1) % n;
    cond.set_int(k, k < n);
    copy(self, k, k < n ? here : next);
    copy(other, k, k < n ? next : here);
  }
  Case& sp = set.add("special");
  sp.tensor("condition", cond).tensor("self", self).tensor("other", other);
  sp.ref(reference).tolerance(exact);

  // self and other the same tensor; for bool, the condition too.
  Case& al = set.add("aliased");
  al.tensor("condition", random(al.rng, DType::Bool, {5, 7}));
  al.tensor("self", random(al.rng, dt, {5, 7})).alias("other", "self");
  al.ref(reference).tolerance(exact);
  if (dt == DType::Bool) {
    Case& all = set.add("aliased_condition");
    all.tensor("condition", random(all.rng, DType::Bool, {5, 7}));
    all.alias("self", "condition").alias("other", "condition").ref(reference);
    all.out_self = true;
  }

  // A 0-d condition picks one side everywhere.
  Case& c0 = set.add("bcast_0d_condition");
  c0.tensor("condition", from_values(DType::Bool, {}, {1}));
  c0.tensor("self", random(c0.rng, dt, {13, 17})).tensor("other", random(c0.rng, dt, {17}));
  c0.ref(reference).tolerance(exact);

  if (dt == DType::F32) {
    // An integer self and a 0-d float32 other promote to float32.
    Case& c = set.add("promote_int_and_0d_float");
    c.tensor("condition", random(c.rng, DType::Bool, {13, 17}));
    c.tensor("self", random(c.rng, DType::I32, {13, 17}, {-1000, 1000}));
    c.tensor("other", from_values(DType::F32, {}, {0.5}));
    c.ref([](const Inputs& in) {
      return expect(ref::where(in["condition"], ref::convert(in["self"], DType::F32),
                               ref::convert(in["other"], DType::F32)));
    });
  }
  // The condition must be bool.
  Case& bad = set.add("condition_not_bool");
  bad.tensor("condition", from_values(DType::U8, {3}, {1, 0, 1}));
  bad.tensor("self", random(bad.rng, dt, {3})).tensor("other", random(bad.rng, dt, {3}));
  bad.expect_error = "must be a bool tensor";
}

}  // namespace

void add_compare_ops(std::vector<OpInfo>& v) {
  for (const CmpOp& op : kCmpOps) {
    ref::Cmp cmp = op.cmp;
    v.push_back({std::string(op.name) + ".Tensor_out",
                 [cmp](CaseSet& s) { compare_tensor_cases(s, cmp); }});
    v.push_back({std::string(op.name) + ".Scalar_out",
                 [cmp](CaseSet& s) { compare_scalar_cases(s, cmp); }});
  }
  v.push_back({"where.self_out", where_cases});
}

}  // namespace plexus::conformance
