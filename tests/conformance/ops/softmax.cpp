// Conformance cases of softmax and log_softmax.
#include "reference/softmax.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void softmax_cases(CaseSet& set, bool log) {
  const DType dt = set.dtype();
  // Rounding of x - max, exp, log and the division, plus the sum's: the
  // reference's scale bounds the accumulated part for any summation order;
  // ulps 2 covers exp/log and the final rounding.
  const Tolerance tol{.ulps = 2, .acc = 1};
  auto reference = [log](int64_t dim, std::optional<DType> to) {
    return [=](const Inputs& in) {
      // dtype=: the input is converted before the op (PyTorch's definition).
      ref::Tensor x = to ? ref::convert(in["self"], *to) : in["self"];
      std::vector<double> s;
      ref::Tensor y = ref::softmax(x, dim, log, &s);
      return accumulated(std::move(y), std::move(s));
    };
  };
  auto add = [&](const std::string& name, ref::Sizes sizes, int64_t dim,
                 uint32_t layout = Contiguous, Range r = {}) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, dt, sizes, r), layout).arg("dim", dim);
    c.ref(reference(dim, std::nullopt)).tolerance(tol);
    return c;
  };

  add("0d", {}, 0);
  add("0d_neg_dim", {}, -1);
  add("empty", {0}, 0);
  add("empty_rows", {3, 0}, 1);
  add("empty_outer", {0, 5}, 1);
  add("one", {1}, 0);
  add("odd", {7}, 0);
  add("leading_dim", {13, 4}, 0);
  for (int64_t d = 0; d < 3; ++d) {
    add("3d_dim" + std::to_string(d), {3, 5, 7}, d);
    add("3d_dim_neg" + std::to_string(d + 1), {3, 5, 7}, -(d + 1));
  }
  add("4d_dim1", {2, 3, 4, 5}, 1);
  add("prime_2d", {13, 17}, 1);
  add("long_row", {3, 1031}, 1);
  add("longer_row", {2, 2500}, 1);  // past what a GPU block keeps in registers
  add("many_rows", {65537 + 6, 3}, 1);  // more rows than one grid dimension launches
  add("large", {127, 1031}, -1);
  add("transposed", {13, 17}, 1, Transposed).out_layout = Transposed;
  add("transposed_dim0", {13, 17}, 0, Transposed);
  add("transposed_3d", {3, 5, 7}, 1, Transposed);
  add("strided", {13, 17}, 1, Strided).out_layout = Strided;
  add("strided_dim0", {13, 17}, 0, Strided);
  add("offset", {37}, 0, Offset).out_layout = Offset;
  add("expanded", {13, 17}, 1, Expanded);
  add("expanded_dim0", {13, 17}, 0, Expanded);
  add("mixed_layout", {9, 11}, 0, Transposed | Offset).out_layout = Strided | Offset;
  // exp(x) overflows (or underflows to 0 for every element) in every dtype,
  // double included: only the max-subtraction gets these right.
  add("large_positive", {5, 33}, 1, Contiguous, {992, 1008});
  add("large_negative", {5, 33}, 1, Contiguous, {-1008, -992});
  add("huge", {5, 33}, 1, Contiguous, {-dtype_max(dt) / 4, dtype_max(dt) / 4});
  // -inf entries give 0 (log: -inf); row 0 is all -inf and gives NaN.
  for (int64_t dim : {int64_t{1}, int64_t{0}}) {
    Case& c = add(dim ? "neg_inf" : "neg_inf_dim0", {9, 11}, dim);
    ref::Tensor x = sprinkle(c.rng, random(c.rng, dt, {9, 11}), -kInf, 0.3);
    for (int64_t k = 0; k < (dim ? 11 : 9); ++k) x.set_float(dim ? k : k * 11, -kInf);
    std::get<TensorArg>(c.args[0].second).values = std::move(x);
  }
  // Special values: rows (dim 1) or columns (dim 0) holding NaN, +inf, the
  // dtype's extremes and subnormals next to ordinary numbers.
  {
    std::vector<double> sv = special_values(dt);
    const int64_t n = static_cast<int64_t>(sv.size());
    ref::Tensor x(dt, {n, 5});
    for (int64_t r = 0; r < n; ++r) {
      const double row[5] = {sv[static_cast<size_t>(r)], 1.0, -2.0, 0.5,
                             sv[static_cast<size_t>((r + 3) % n)]};
      for (int64_t k = 0; k < 5; ++k) x.set_float(r * 5 + k, ref::round_to(dt, row[k]));
    }
    add("special", {n, 5}, 1).tensor("self", x);
    add("special_dim0", {n, 5}, 0).tensor("self", x);
  }
  // dtype=: the kernel computes in dtype after converting self.
  {
    const DType from = dt == DType::F32 ? DType::F16 : DType::F32;
    Case& c = set.add("dtype_arg");
    c.tensor("self", random(c.rng, from, {7, 19})).arg("dim", int64_t{1}).arg("dtype", dt);
    c.ref(reference(1, dt)).tolerance(tol);
    add("dtype_same", {7, 19}, 1).arg("dtype", dt);
    Case& i = set.add("dtype_int_self");
    i.tensor("self", random(i.rng, DType::I32, {5, 9})).arg("dim", int64_t{0}).arg("dtype", dt);
    i.ref(reference(0, dt)).tolerance(tol);
  }
  // Errors: an integer self without dtype, a dim out of range.
  Case& int_self = set.add("error_int_self");
  int_self.tensor("self", random(int_self.rng, DType::I64, {3, 4})).arg("dim", int64_t{1});
  int_self.expect_error = "";
  add("error_dim", {3, 4}, 2).expect_error = "";
  add("error_neg_dim", {3, 4}, -3).expect_error = "";
  add("stress", {64, 257}, 1).stress = true;
}

// softmax_backward / log_softmax_backward(grad_output, output, dim): output
// is a softmax's result (in [0, 1]) or a log_softmax's (<= 0).
void softmax_backward_cases(CaseSet& set, bool log) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, ref::Sizes sizes, int64_t dim,
                 uint32_t layout = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("grad_output", random(c.rng, dt, sizes, {-2, 2}), layout)
        .tensor("output", log ? random(c.rng, dt, sizes, {-12, 0}) : random(c.rng, dt, sizes, {0, 1}),
                layout)
        .arg("dim", dim);
    // The row's sum adds len terms in any order; a few roundings besides.
    // (An error case's dim may be out of range: its length is never used.)
    const int64_t rank = static_cast<int64_t>(sizes.size());
    const int64_t wrapped = dim < 0 ? dim + rank : dim;
    const double len = wrapped >= 0 && wrapped < rank
                           ? static_cast<double>(sizes[static_cast<size_t>(wrapped)])
                           : 1.0;
    c.ref([dim, log, len](const Inputs& in) {
       std::vector<double> sc;
       ref::Tensor g = ref::softmax_backward(in["grad_output"], in["output"], dim, log, &sc);
       return accumulated(std::move(g), std::move(sc), len + 2);
     }).tolerance(Tolerance{.ulps = 2, .acc = 1});
    return c;
  };
  add("0d", {}, 0);
  add("empty", {0}, 0);
  add("empty_rows", {3, 0}, 1);
  add("one", {1}, 0);
  add("odd", {7}, 0);
  for (int64_t d = 0; d < 3; ++d) {
    add("3d_dim" + std::to_string(d), {3, 5, 7}, d);
    add("3d_dim_neg" + std::to_string(d + 1), {3, 5, 7}, -(d + 1));
  }
  add("prime_2d", {13, 17}, 1);
  add("long_row", {3, 1031}, 1);
  add("longer_row", {2, 2500}, 1);  // past what a GPU block keeps in registers
  add("many_rows", {65537 + 6, 3}, 1);  // more rows than one grid dimension launches
  add("large", {127, 1031}, -1);
  add("transposed", {13, 17}, 1, Transposed).out_layout = Transposed;
  add("transposed_dim0", {13, 17}, 0, Transposed);
  add("strided", {13, 17}, 1, Strided).out_layout = Strided;
  add("offset", {37}, 0, Offset).out_layout = Offset;
  add("expanded", {13, 17}, 1, Expanded);
  // Errors: shapes that differ, a dim out of range.
  {
    Case& c = add("error_shape", {3, 4}, 1);
    c.tensor("grad_output", random(c.rng, dt, {4, 3}));
    c.expect_error = "grad_output";
  }
  add("error_dim", {3, 4}, 2).expect_error = "dim";
  add("stress", {64, 129}, 1).stress = true;
}

}  // namespace

void add_softmax_ops(std::vector<OpInfo>& v) {
  v.push_back({"softmax.int_out", [](CaseSet& s) { softmax_cases(s, false); }});
  v.push_back({"log_softmax.int_out", [](CaseSet& s) { softmax_cases(s, true); }});
  v.push_back({"softmax_backward.out", [](CaseSet& s) { softmax_backward_cases(s, false); }});
  v.push_back({"log_softmax_backward.out", [](CaseSet& s) { softmax_backward_cases(s, true); }});
}

}  // namespace plexus::conformance
