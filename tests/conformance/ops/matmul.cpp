// Conformance cases of the matrix products: mm, bmm, addmm.
//
// Each op runs over a table of shapes (1x1x1, empty contractions and empty
// results, vector-like, odd and prime sizes, a large one, transposed, strided,
// offset and expanded operands), then exact-valued products, special values
// and the errors the op must raise.
#include <algorithm>
#include <cmath>
#include <functional>

#include "reference/linalg.h"
#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {


// How a case makes a tensor argument from its rng.
using Make = std::function<ref::Tensor(Rng&)>;
Make random_make(DType t, ref::Sizes sizes) {
  return [t, sizes](Rng& rng) { return wide(rng, t, sizes); };
}
// Small integers in [-2, 2]: products of at most 4.
Make small_make(DType t, ref::Sizes sizes) {
  return [t, sizes](Rng& rng) { return small_integers(rng, t, sizes, -2, 2); };
}
Make fixed(ref::Tensor t) {
  return [t = std::move(t)](Rng&) { return t; };
}

// The operands of a special-values product, [4, 3] @ [3, 4] per batch: NaN,
// infinities (inf * 0 and inf - inf give NaN), signed zero, subnormals times
// small integers and an overflow, each with one result in any order of the
// additions. Integers: the dtype's edge values, which wrap.
ref::Tensor special_lhs(DType dt, int64_t batch) {
  ref::Sizes sizes = batch ? ref::Sizes{batch, 6, 3} : ref::Sizes{6, 3};
  if (!is_floating(dt)) return from_values(dt, sizes, special_values(dt));
  const double nan = std::nan(""), inf = INFINITY, sub = ulp_of(dt, 0), max = dtype_max(dt);
  return from_values(dt, sizes,
                     {nan, 1, 1, inf, 1, 1, 1, 2, 3, -inf, inf, 1, sub, -sub, sub, max, 0, 0});
}
ref::Tensor special_rhs(DType dt, int64_t batch) {
  ref::Sizes sizes = batch ? ref::Sizes{batch, 3, 4} : ref::Sizes{3, 4};
  if (!is_floating(dt)) return from_values(dt, sizes, special_values(dt));
  return from_values(dt, sizes, {1, 0, -1, 2, 1, 1, 1, -0.0, 1, 1, 1, 1});
}

// A dtype other than dt, for dtype-mismatch errors.
DType other_dtype(DType dt) {
  return dt == DType::F32 ? DType::F64 : DType::F32;
}

// Combined layouts of the mixed_layouts cases.
constexpr uint32_t kTO = Transposed | Offset, kSO = Strided | Offset;

// ---- mm and bmm ----------------------------------------------------------------

struct ProductShape {
  const char* name;
  ref::Sizes a, b;
  uint32_t la = Contiguous, lb = Contiguous, out_layout = Contiguous;
  bool stress = false;
};

void product_cases(CaseSet& set, bool batched, const std::vector<ProductShape>& shapes) {
  const DType dt = set.dtype();
  // A case of self @ mat2; `exact` when every partial sum is exact in the dtype.
  auto add = [&](const std::string& name, const Make& a, uint32_t la, const Make& b, uint32_t lb,
                 bool exact) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", a(c.rng), la);
    c.tensor("mat2", b(c.rng), lb);
    c.ref([=](const Inputs& in) {
      const ref::Tensor &x = in["self"], &y = in["mat2"];
      Expected e = expect(batched ? ref::bmm(x, y) : ref::mm(x, y));
      if (!exact && is_floating(dt))
        e.scale = accumulation_scale(dt, ref::product_abs(x, y), x.sizes.back());
      return e;
    });
    c.tol = exact ? Tolerance{} : kAccumulated;
    return c;
  };
  auto random_of = [dt](ref::Sizes s) { return random_make(dt, std::move(s)); };
  auto small_of = [dt](ref::Sizes s) { return small_make(dt, std::move(s)); };

  for (const ProductShape& s : shapes) {
    Case& c = add(s.name, random_of(s.a), s.la, random_of(s.b), s.lb, false);
    c.out_layout = s.out_layout;
    c.stress = s.stress;
  }
  // Small integers in [-2, 2] and at most 64 terms: every partial sum is an
  // integer of at most 256, exact even in bfloat16. A kernel off by one ulp fails.
  ref::Sizes ea = {33, 64}, eb = {64, 29};
  if (batched) {
    ea.insert(ea.begin(), 3);
    eb.insert(eb.begin(), 3);
  }
  add("exact", small_of(ea), Contiguous, small_of(eb), Contiguous, true);
  // A contraction in the thousands, past any K tile or split a kernel uses,
  // with small integers: partial sums reach a few thousand, exact in the
  // float32 that 16-bit floats accumulate in (and in every wider type), so
  // a kernel that drops a tail of K or accumulates in 16 bits is off by
  // more than the one rounding at the end allows.
  ref::Sizes la = {5, 3001}, lb = {3001, 7};
  if (batched) {
    la.insert(la.begin(), 2);
    lb.insert(lb.begin(), 2);
  }
  auto nonneg_of = [dt](ref::Sizes s) {
    return Make([dt, s](Rng& rng) { return small_integers(rng, dt, s, 0, 2); });
  };
  add("long_k_exact", nonneg_of(la), Contiguous, nonneg_of(lb), Transposed, true);
  add("long_k", random_of(la), Contiguous, random_of(lb), Contiguous, false);
  add("exact_layouts", small_of(ea), Transposed | Offset, small_of(eb), Strided, true).out_layout =
      Transposed;

  int64_t nb = batched ? 2 : 0;
  add("special", fixed(special_lhs(dt, nb)), Contiguous, fixed(special_rhs(dt, nb)), Contiguous,
      true);

  // Shapes the op must reject.
  auto error = [&](const std::string& name, ref::Sizes a, ref::Sizes b, DType bt,
                   const char* message) {
    add(name, random_of(std::move(a)), Contiguous, random_make(bt, std::move(b)), Contiguous, false)
        .expect_error = message;
  };
  if (batched) {
    error("error_inner", {2, 3, 4}, {2, 5, 2}, dt, "cannot be multiplied");
    error("error_batch", {2, 3, 4}, {3, 4, 2}, dt, "same batch size");
    error("error_rank", {3, 4}, {4, 2}, dt, "3-D");
    error("error_dtype", {2, 3, 4}, {2, 4, 2}, other_dtype(dt), "same dtype");
  } else {
    error("error_inner", {3, 4}, {5, 2}, dt, "cannot be multiplied");
    error("error_rank", {3}, {3, 2}, dt, "2-D");
    error("error_dtype", {3, 4}, {4, 2}, other_dtype(dt), "same dtype");
  }
}

const std::vector<ProductShape>& mm_shapes() {
  // clang-format off
  static const std::vector<ProductShape> s = {
      {"1x1x1", {1, 1}, {1, 1}},
      {"k0", {3, 0}, {0, 4}},
      {"m0", {0, 5}, {5, 3}},
      {"n0", {4, 5}, {5, 0}},
      {"dot", {1, 37}, {37, 1}},
      {"outer", {29, 1}, {1, 23}},
      {"row", {1, 64}, {64, 23}},
      {"col", {29, 8}, {8, 1}},
      {"prime", {17, 31}, {31, 13}},
      {"square", {16, 16}, {16, 16}},
      {"large", {200, 200}, {200, 200}},
      {"transposed_self", {17, 31}, {31, 13}, Transposed},
      {"transposed_mat2", {17, 31}, {31, 13}, Contiguous, Transposed},
      {"transposed_both", {17, 31}, {31, 13}, Transposed, Transposed, Transposed},
      {"strided_self", {17, 31}, {31, 13}, Strided},
      {"strided_mat2", {17, 31}, {31, 13}, Contiguous, Strided, Strided},
      {"offset", {17, 31}, {31, 13}, Offset, Offset, Offset},
      {"expanded_self", {17, 31}, {31, 13}, Expanded},
      {"expanded_mat2", {17, 31}, {31, 13}, Contiguous, Expanded},
      {"expanded_both", {17, 31}, {31, 13}, Expanded, Expanded},
      {"mixed_layouts", {23, 19}, {19, 11}, kTO, kSO, kSO},
      {"stress", {64, 64}, {64, 64}, Contiguous, Contiguous, Contiguous, true},
  };
  // clang-format on
  return s;
}

const std::vector<ProductShape>& bmm_shapes() {
  // clang-format off
  static const std::vector<ProductShape> s = {
      {"1x1x1x1", {1, 1, 1}, {1, 1, 1}},
      {"batch0", {0, 3, 4}, {0, 4, 5}},
      {"k0", {2, 3, 0}, {2, 0, 4}},
      {"m0", {3, 0, 5}, {3, 5, 2}},
      {"batch1", {1, 17, 31}, {1, 31, 13}},
      {"prime", {3, 17, 31}, {3, 31, 13}},
      {"large", {8, 64, 96}, {8, 96, 80}},
      {"transposed_self", {3, 17, 31}, {3, 31, 13}, Transposed},
      {"transposed_mat2", {3, 17, 31}, {3, 31, 13}, Contiguous, Transposed, Transposed},
      {"strided", {3, 17, 31}, {3, 31, 13}, Strided, Strided, Strided},
      {"offset", {3, 17, 31}, {3, 31, 13}, Offset, Offset, Offset},
      {"expanded_self", {3, 17, 31}, {3, 31, 13}, Expanded},
      {"expanded_mat2", {3, 17, 31}, {3, 31, 13}, Contiguous, Expanded},
      // Both batches broadcast (stride 0): every output matrix is the same product.
      {"expanded_both", {3, 17, 31}, {3, 31, 13}, Expanded, Expanded},
      {"mixed_layouts", {5, 9, 11}, {5, 11, 7}, kTO, kSO, kSO},
      {"stress", {4, 32, 48}, {4, 48, 40}, Contiguous, Contiguous, Contiguous, true},
  };
  // clang-format on
  return s;
}

// ---- addmm ---------------------------------------------------------------------

void addmm_cases(CaseSet& set) {
  const DType dt = set.dtype();
  const bool fl = is_floating(dt);
  // Non-trivial factors, exact in every dtype (and within every integer dtype).
  const double beta = fl ? 0.5 : 3, alpha = fl ? -2 : 2;
  auto scalar = [fl](double v) { return fl ? Scalar(v) : Scalar(static_cast<int64_t>(v)); };
  struct Spec {
    const char* name;
    ref::Sizes self, m1, m2;
    std::optional<std::pair<double, double>> factors;  // beta, alpha; none: defaults (1, 1)
    // Layouts of self, mat1, mat2 and out (0 in the table: Contiguous).
    uint32_t ls = Contiguous, l1 = Contiguous, l2 = Contiguous, out_layout = Contiguous;
    bool out_self = false, stress = false;
  };
  const std::pair<double, double> ba{beta, alpha};
  // clang-format off
  const Spec specs[] = {
      {"1x1x1", {1, 1}, {1, 1}, {1, 1}},
      {"default_factors", {17, 13}, {17, 31}, {31, 13}, std::nullopt, 0, 0, 0, 0, true},
      {"factors", {17, 13}, {17, 31}, {31, 13}, ba, 0, 0, 0, 0, true},
      {"bcast_row", {13}, {17, 31}, {31, 13}, ba},
      {"bcast_row_2d", {1, 13}, {17, 31}, {31, 13}},
      {"bcast_col", {17, 1}, {17, 31}, {31, 13}, ba},
      {"bcast_0d", {}, {17, 31}, {31, 13}, ba},
      {"k0", {5, 4}, {5, 0}, {0, 4}, ba},
      {"m0", {4}, {0, 5}, {5, 4}, ba},
      {"large", {200}, {200, 200}, {200, 200}, ba},
      {"long_k", {7}, {5, 3001}, {3001, 7}, ba},
      {"transposed", {17, 13}, {17, 31}, {31, 13}, ba, Transposed, Transposed, Strided, Transposed},
      {"expanded_self", {17, 13}, {17, 31}, {31, 13}, ba, Expanded},
      {"offset", {17, 13}, {17, 31}, {31, 13}, ba, Offset, Offset, Offset, Offset, true},
      {"mixed_layouts", {9, 11}, {9, 7}, {7, 11}, ba, kSO, kTO, Expanded, kSO},
      {"stress", {64}, {64, 64}, {64, 64}, ba, 0, 0, 0, 0, false, true},
  };
  // clang-format on
  // A case of beta * self + alpha * (mat1 @ mat2); `exact` when every partial
  // sum is exact in the dtype.
  auto add = [&](const std::string& name, const Make& s, uint32_t ls, const Make& a, uint32_t la,
                 const Make& b, uint32_t lb, std::optional<std::pair<double, double>> factors,
                 bool exact) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", s(c.rng), ls);
    c.tensor("mat1", a(c.rng), la);
    c.tensor("mat2", b(c.rng), lb);
    if (factors) c.arg("beta", scalar(factors->first)).arg("alpha", scalar(factors->second));
    const double fb = factors ? factors->first : 1, fa = factors ? factors->second : 1;
    c.ref([=](const Inputs& in) {
      const ref::Tensor &self = in["self"], &m1 = in["mat1"], &m2 = in["mat2"];
      Expected e = expect(ref::addmm(self, m1, m2, fb, fa));
      if (!exact && is_floating(dt)) {
        // The terms: beta * self (left out when beta is 0) and alpha * each product.
        ref::Tensor products(DType::F64, e.values.sizes);
        products.f = ref::product_abs(m1, m2);
        ref::Tensor terms =
            ref::map({&products, &self}, DType::F64,
                     [=](const std::vector<double>& v) {
                       return std::fabs(fa) * v[0] + (fb == 0 ? 0 : std::fabs(fb * v[1]));
                     },
                     {});
        e.scale = accumulation_scale(dt, terms.f, m1.sizes.back() + 1);
      }
      return e;
    });
    c.tol = exact ? Tolerance{} : kAccumulated;
    return c;
  };
  auto random_of = [dt](ref::Sizes s) { return random_make(dt, std::move(s)); };
  auto small_of = [dt](ref::Sizes s) { return small_make(dt, std::move(s)); };

  for (const Spec& s : specs) {
    Case& c = add(s.name, random_of(s.self), s.ls, random_of(s.m1), s.l1, random_of(s.m2), s.l2,
                  s.factors, false);
    c.out_layout = s.out_layout;
    c.out_self = s.out_self;
    c.stress = s.stress;
  }

  // beta 0 ignores self, NaN and inf included (PyTorch), also with no product terms.
  const Make poison = fl ? fixed(from_values(dt, {17, 13}, {std::nan(""), INFINITY, -INFINITY, 1}))
                         : random_of({17, 13});
  add("beta0", poison, Contiguous, random_of({17, 31}), Contiguous, random_of({31, 13}), Contiguous,
      std::pair{0.0, 1.0}, false);
  add("beta0_alpha", poison, Contiguous, random_of({17, 31}), Contiguous, random_of({31, 13}),
      Contiguous, std::pair{0.0, alpha}, false);
  const Make poison_k0 =
      fl ? fixed(from_values(dt, {5, 4}, {std::nan(""), INFINITY})) : random_of({5, 4});
  add("beta0_k0", poison_k0, Contiguous, random_of({5, 0}), Contiguous, random_of({0, 4}),
      Contiguous, std::pair{0.0, alpha}, false);

  // Small integers in [-2, 2], 48 terms, beta 2 (3 for integers) and alpha -1
  // (2): every partial sum is an integer below 256, exact even in bfloat16.
  const std::pair<double, double> exact_factors{fl ? 2 : 3, fl ? -1 : 2};
  add("exact", small_of({29, 23}), Contiguous, small_of({29, 48}), Contiguous, small_of({48, 23}),
      Contiguous, exact_factors, true)
      .out_self = true;
  add("exact_bcast", small_of({23}), Contiguous, small_of({29, 48}), Transposed, small_of({48, 23}),
      Strided | Offset, exact_factors, true);

  // NaN and inf in self and in the operands; self is finite where the product
  // overflows, so that the sum does not depend on where it overflows.
  const double nan = std::nan(""), inf = INFINITY;
  const ref::Tensor special_self =
      fl ? from_values(dt, {6, 4}, {1, 2, 3, 4, 1, 1,    inf, -inf, nan, inf, -inf, 0,
                                    0, 0, 0, 0, 0, -0.0, 0,   0,    0,   0,   0,    0})
         : from_values(dt, {6, 4}, special_values(dt));
  add("special", fixed(special_self), Contiguous, fixed(special_lhs(dt, 0)), Contiguous,
      fixed(special_rhs(dt, 0)), Contiguous, std::pair{1.0, 1.0}, true);

  // alpha 0 drops the product, NaN and inf in its operands included (BLAS's
  // rule, and PyTorch's for float32 and float64), as beta 0 drops self.
  // "alpha0_after_special" follows a scaled product of special values of the
  // same shapes: a kernel that keeps state between calls (a cached primitive,
  // a scratch buffer) must not carry those values into it.
  const Make scaled_lhs =
      fl ? fixed(from_values(dt, {6, 3}, {nan, 1, 1, inf, 1, 1, 1, 2, 3, -inf, inf, 1, 2, 1, 1}))
         : fixed(special_lhs(dt, 0));
  add("special_scaled", fixed(special_self), Contiguous, scaled_lhs, Contiguous,
      fixed(special_rhs(dt, 0)), Contiguous, std::pair{1.0, alpha}, true);
  add("alpha0_after_special", small_of({6, 4}), Contiguous, small_of({6, 3}), Contiguous,
      small_of({3, 4}), Contiguous, std::pair{beta, 0.0}, true);
  add("alpha0_special_operands", small_of({6, 4}), Contiguous, fixed(special_lhs(dt, 0)),
      Contiguous, fixed(special_rhs(dt, 0)), Contiguous, std::pair{beta, 0.0}, true);

  // Arguments the op must reject.
  Case& shape = add("error_self_shape", random_of({18, 13}), Contiguous, random_of({17, 31}),
                    Contiguous, random_of({31, 13}), Contiguous, ba, false);
  shape.expect_error = "broadcast";
  Case& type = add("error_self_dtype", random_make(other_dtype(dt), {17, 13}), Contiguous,
                   random_of({17, 31}), Contiguous, random_of({31, 13}), Contiguous, ba, false);
  type.expect_error = "same dtype";
  Case& inner = add("error_inner", random_of({3, 2}), Contiguous, random_of({3, 4}), Contiguous,
                    random_of({5, 2}), Contiguous, ba, false);
  inner.expect_error = "cannot be multiplied";
}

}  // namespace

void add_matmul_ops(std::vector<OpInfo>& v) {
  v.push_back({"mm.out", [](CaseSet& s) { product_cases(s, false, mm_shapes()); }});
  v.push_back({"bmm.out", [](CaseSet& s) { product_cases(s, true, bmm_shapes()); }});
  v.push_back({"addmm.out", addmm_cases});
}

}  // namespace plexus::conformance
