// Conformance cases of the shape ops: cat.
#include "reference/shape.h"

#include "suite.h"

namespace plexus::conformance {

namespace {

void cat_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Copies elements: exact, -0 included.
  const Tolerance tol{.signed_zero = true};
  // Integers over the dtype's whole range, so a narrowing copy shows.
  auto make = [dt](Rng& rng, const ref::Sizes& sizes) {
    return is_floating(dt) ? random(rng, dt, sizes) : random(rng, dt, sizes, {-1e18, 1e18});
  };
  // A case joining tensors of `sizes` (with `layouts`, or all contiguous).
  auto add = [&](const std::string& name, const std::vector<ref::Sizes>& sizes, int64_t dim,
                 const std::vector<uint32_t>& layouts = {}) -> Case& {
    Case& c = set.add(name);
    std::vector<TensorArg> ts;
    for (size_t k = 0; k < sizes.size(); ++k)
      ts.push_back({make(c.rng, sizes[k]), layouts.empty() ? Contiguous : layouts[k], {}});
    c.arg("tensors", std::move(ts)).arg("dim", dim);
    c.ref([dim](const Inputs& in) { return expect(ref::cat(in.list("tensors"), dim)); });
    c.tolerance(tol);
    return c;
  };
  add("1d", {{5}, {7}, {1}}, 0);
  add("1d_neg_dim", {{3}, {4}}, -1);
  add("2d_dim0", {{2, 3}, {4, 3}, {1, 3}}, 0);
  add("2d_dim1", {{3, 2}, {3, 5}}, 1);
  add("2d_dim_neg1", {{3, 2}, {3, 5}, {3, 1}}, -1);
  add("2d_dim_neg2", {{2, 3}, {5, 3}}, -2);
  for (int64_t d = 0; d < 3; ++d) {
    ref::Sizes a{2, 3, 4}, b{2, 3, 4};
    b[static_cast<size_t>(d)] = 5;
    add("3d_dim" + std::to_string(d), {a, b, a}, d);
    add("3d_dim_neg" + std::to_string(3 - d), {b, a}, d - 3);
  }
  add("4d_dim2", {{2, 1, 3, 2}, {2, 1, 1, 2}}, 2);
  add("single", {{4, 5}}, 1);
  add("prime", {{13, 17}, {13, 11}, {13, 19}}, 1);
  // Members with nothing along dim, and results with no elements.
  add("zero_length", {{2, 3}, {0, 3}, {4, 3}}, 0);
  add("zero_length_dim1", {{3, 0}, {3, 2}, {3, 0}}, 1);
  add("all_zero_length", {{0, 3}, {0, 3}}, 0);
  add("empty_other_dim", {{0, 2}, {0, 3}}, 1);
  // 1-D empty tensors are skipped whatever the others' shapes (PyTorch's
  // legacy rule), also when dim is counted against the others.
  add("legacy_empty", {{0}, {2, 3}, {0}, {1, 3}}, 0);
  add("legacy_empty_dim1", {{2, 3}, {0}, {2, 4}}, 1);
  add("legacy_empty_neg_dim", {{0}, {2, 3, 2}, {2, 1, 2}}, -2);
  add("legacy_empty_1d", {{5}, {0}, {1}}, 0);
  add("legacy_only", {{0}, {0}}, 0);
  // Many members, of many lengths.
  {
    std::vector<ref::Sizes> nine;
    for (int64_t k = 0; k < 9; ++k) nine.push_back({3, (k * 5) % 7, 2});
    add("many", nine, 1);
    add("many_dim_neg1", std::vector<ref::Sizes>(9, ref::Sizes{4, 3}), -1);
  }
  add("large", {{300, 500}, {300, 400}}, 1);
  // Non-contiguous members, and an out with gaps.
  add("transposed", {{5, 7}, {5, 3}}, 1, {Transposed, Contiguous}).out_layout = Transposed;
  add("transposed_dim0", {{5, 7}, {3, 7}, {2, 7}}, 0, {Transposed, Transposed, Offset});
  add("strided", {{4, 6}, {4, 5}}, 1, {Strided, Strided | Offset}).out_layout = Strided;
  add("offset", {{7}, {9}}, 0, {Offset, Offset}).out_layout = Offset;
  add("expanded", {{6, 4}, {6, 3}}, 1, {Expanded, Contiguous});
  add("mixed_3d", {{2, 3, 4}, {2, 5, 4}, {2, 1, 4}}, 1, {Transposed | Offset, Strided, Expanded})
      .out_layout = Strided | Offset;
  {
    // The dtype's special values (int64's edges) copied bit-exactly.
    Case& c = add("special", {{15, 2}, {15, 1}}, 1);
    auto& ts = std::get<std::vector<TensorArg>>(c.args[0].second);
    std::vector<double> sv = special_values(dt);
    ts[0].values = from_values(dt, {15, 2}, sv);
    ts[1].values = from_values(dt, {15, 1}, sv);
  }
  // Errors: sizes that differ outside dim, a 0-d member, dims that differ,
  // dim out of range. (An empty list cannot be expressed: the engine places
  // no tensors for it and fails to box the argument.)
  add("error_sizes", {{2, 3}, {2, 4}}, 0).expect_error = "";
  add("error_0d", {{2}, {}}, 0).expect_error = "";
  add("error_dims", {{2, 3}, {2, 3, 1}}, 0).expect_error = "";
  add("error_dim", {{2, 3}, {2, 3}}, 2).expect_error = "";
  add("stress", {{64, 20}, {64, 33}, {64, 1}}, 1).stress = true;
}

}  // namespace

void add_shape_ops(std::vector<OpInfo>& v) {
  v.push_back({"cat.out", cat_cases});
}

}  // namespace plexus::conformance
