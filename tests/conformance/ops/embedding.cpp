// Conformance cases of embedding.
#include "reference/embedding.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

void embedding_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Copies rows: exact, -0 included.
  const Tolerance tol{.signed_zero = true};
  auto indices = [](Rng& rng, DType t, const ref::Sizes& sizes, int64_t num) {
    ref::Tensor idx(t, sizes);
    for (int64_t k = 0; k < idx.numel(); ++k) idx.set_int(k, rng.integer(0, num - 1));
    return idx;
  };
  auto add = [&](const std::string& name, ref::Sizes weight, ref::Sizes idx,
                 DType index_dtype = DType::I64, uint32_t weight_layout = Contiguous,
                 uint32_t index_layout = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("weight", random(c.rng, dt, weight), weight_layout);
    c.tensor("indices", indices(c.rng, index_dtype, idx, std::max<int64_t>(weight[0], 1)),
             index_layout);
    c.ref([](const Inputs& in) { return expect(ref::embedding(in["weight"], in["indices"])); });
    c.tolerance(tol);
    return c;
  };
  add("basic", {10, 4}, {5});
  add("int32", {10, 4}, {5}, DType::I32);
  add("0d_index", {7, 3}, {});
  add("0d_index_int32", {7, 3}, {}, DType::I32);
  add("empty", {7, 3}, {0});
  add("empty_2d", {7, 3}, {2, 0}, DType::I32);
  add("empty_weight", {0, 3}, {0});
  add("zero_width", {7, 0}, {4});
  add("one", {1, 1}, {1});
  add("3d_indices", {11, 5}, {2, 3, 4});
  add("repeated", {3, 6}, {40});
  add("prime", {13, 17}, {19}, DType::I32);
  add("transposed_weight", {9, 6}, {4, 5}, DType::I64, Transposed).out_layout = Transposed;
  add("strided", {9, 6}, {4, 5}, DType::I32, Strided, Strided).out_layout = Strided;
  add("offset", {9, 6}, {7}, DType::I64, Offset, Offset).out_layout = Offset;
  add("transposed_indices", {9, 6}, {4, 5}, DType::I64, Contiguous, Transposed);
  add("expanded", {9, 6}, {3, 5}, DType::I64, Expanded, Expanded);
  add("large", {1000, 64}, {4001});
  // padding_idx and the other flags only change the backward pass.
  for (int64_t pad : {int64_t{3}, int64_t{-2}}) {
    Case& c = add(pad >= 0 ? "padding_idx" : "padding_idx_negative", {6, 4}, {12});
    c.arg("padding_idx", pad);
    ref::Tensor& idx = std::get<TensorArg>(c.args[1].second).values;
    for (int64_t k = 0; k < 12; k += 2) idx.set_int(k, pad >= 0 ? pad : 6 + pad);
  }
  add("flags", {6, 4}, {8}).arg("scale_grad_by_freq", true).arg("sparse", true);
  {
    // The dtype's special values (int64's edges) copied bit-exactly.
    Case& c = add("special", {15, 3}, {30});
    std::vector<double> sv = special_values(dt);
    std::get<TensorArg>(c.args[0].second).values = from_values(dt, {15, 3}, sv);
  }
  // Errors: an index past the end, a negative one (PyTorch raises for both,
  // whatever padding_idx), indices that are not int32/int64.
  for (DType t : {DType::I64, DType::I32}) {
    std::string suffix = t == DType::I64 ? "" : "_int32";
    Case& past = add("error_index_past_end" + suffix, {5, 3}, {4}, t);
    std::get<TensorArg>(past.args[1].second).values.set_int(2, 5);
    past.expect_error = "";
    Case& neg = add("error_index_negative" + suffix, {5, 3}, {4}, t);
    std::get<TensorArg>(neg.args[1].second).values.set_int(3, -1);
    neg.expect_error = "";
  }
  {
    Case& c = add("error_float_indices", {5, 3}, {4});
    c.tensor("indices", random(c.rng, DType::F32, {4}, {0, 4}));
    c.expect_error = "";
  }
  add("stress", {50, 32}, {16, 8}).stress = true;
}

// embedding_backward: grad_output [indices..., dim], the indices, and the
// weight's row count.
void embedding_backward_cases(CaseSet& set) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, int64_t num, int64_t dim, ref::Sizes idx,
                 DType index_dtype = DType::I64, uint32_t grad_layout = Contiguous,
                 uint32_t index_layout = Contiguous, int64_t padding = -1,
                 bool by_freq = false) -> Case& {
    Case& c = set.add(name);
    ref::Sizes gs = idx;
    gs.push_back(dim);
    c.tensor("grad_output", random(c.rng, dt, gs, {-2, 2}), grad_layout);
    ref::Tensor ix(index_dtype, idx);
    for (int64_t k = 0; k < ix.numel(); ++k) ix.set_int(k, c.rng.integer(0, std::max<int64_t>(num, 1) - 1));
    c.tensor("indices", std::move(ix), index_layout).arg("num_weights", num);
    if (padding != -1) c.arg("padding_idx", padding);
    if (by_freq) c.arg("scale_grad_by_freq", true);
    // A row adds the gradients of the positions that picked it, in any order.
    const double positions = static_cast<double>(std::max<int64_t>(ref::numel_of(idx), 1));
    c.ref([num, padding, by_freq, positions](const Inputs& in) {
       std::vector<double> sc;
       ref::Tensor g = ref::embedding_backward(in["grad_output"], in["indices"], num, padding,
                                               by_freq, &sc);
       return accumulated(std::move(g), std::move(sc), positions);
     }).tolerance(Tolerance{.ulps = 1, .acc = 1});
    return c;
  };
  add("basic", 10, 4, {5});
  add("int32", 10, 4, {5}, DType::I32);
  add("0d_index", 7, 3, {});
  add("empty", 7, 3, {0});
  add("empty_weight", 0, 3, {0});
  add("zero_width", 7, 0, {4});
  add("3d_indices", 11, 5, {2, 3, 4});
  // Many positions into few rows: repeated indices add up.
  add("repeated", 3, 6, {40});
  add("prime", 13, 17, {19}, DType::I32);
  add("transposed", 9, 6, {4, 5}, DType::I64, Transposed, Transposed).out_layout = Transposed;
  add("strided", 9, 6, {4, 5}, DType::I32, Strided, Strided).out_layout = Strided;
  add("offset", 9, 6, {7}, DType::I64, Offset, Offset).out_layout = Offset;
  add("expanded", 9, 6, {3, 5}, DType::I64, Expanded, Expanded);
  add("large", 1000, 64, {4001});
  add("padding_idx", 6, 4, {30}, DType::I64, Contiguous, Contiguous, 3);
  add("padding_idx_negative", 6, 4, {30}, DType::I64, Contiguous, Contiguous, -2);
  add("scale_grad_by_freq", 5, 3, {25}, DType::I32, Contiguous, Contiguous, -1, true);
  add("scale_and_padding", 5, 3, {25}, DType::I64, Contiguous, Contiguous, 0, true);
  // Errors: an index past the end, grad_output that does not fit the indices,
  // padding_idx out of range.
  {
    Case& c = add("error_index_past_end", 5, 3, {4});
    std::get<TensorArg>(c.args[1].second).values.set_int(2, 5);
    c.expect_error = "";
  }
  {
    Case& c = add("error_grad_shape", 5, 3, {4});
    c.tensor("grad_output", random(c.rng, dt, {3, 3}));
    c.expect_error = "grad_output";
  }
  add("error_padding", 5, 3, {4}, DType::I64, Contiguous, Contiguous, 5).expect_error =
      "padding_idx";
  add("stress", 50, 32, {16, 8}).stress = true;
}

// index_select(self, dim, index): copies, so exact (-0 included).
void index_select_cases(CaseSet& set) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, ref::Sizes sizes, int64_t dim, ref::Sizes index_sizes,
                 DType index_dtype = DType::I64, uint32_t layout = Contiguous,
                 uint32_t index_layout = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, dt, sizes), layout).arg("dim", dim);
    const int64_t rank = static_cast<int64_t>(sizes.size());
    const int64_t d = dim < 0 ? dim + rank : dim;
    const int64_t n = d >= 0 && d < rank ? sizes[static_cast<size_t>(d)] : 1;
    ref::Tensor ix(index_dtype, index_sizes);
    for (int64_t k = 0; k < ix.numel(); ++k) ix.set_int(k, c.rng.integer(0, std::max<int64_t>(n, 1) - 1));
    c.tensor("index", std::move(ix), index_layout);
    c.ref([dim](const Inputs& in) { return expect(ref::index_select(in["self"], dim, in["index"])); })
        .tolerance(Tolerance{.signed_zero = true});
    return c;
  };
  add("rows", {10, 4}, 0, {6});
  add("columns", {4, 10}, 1, {7}, DType::I32);
  add("middle_dim", {3, 9, 5}, 1, {4});
  add("last_dim_negative", {3, 5, 9}, -1, {12});
  add("0d_index", {6, 3}, 0, {});
  add("0d_self", {}, 0, {1});
  add("1d", {17}, 0, {30}, DType::I32);
  add("empty_index", {5, 3}, 0, {0});
  add("empty_other_dim", {5, 0}, 0, {3});
  add("repeated", {3, 8}, 0, {40});
  add("transposed", {9, 6}, 1, {5}, DType::I64, Transposed).out_layout = Transposed;
  add("strided", {9, 6}, 0, {4}, DType::I32, Strided, Strided).out_layout = Strided;
  add("offset", {7, 5}, 1, {3}, DType::I64, Offset, Offset).out_layout = Offset;
  add("expanded", {6, 5}, 1, {4}, DType::I64, Expanded, Expanded);
  add("large", {1000, 64}, 0, {4001});
  {
    Case& c = add("special", {15, 3}, 0, {30});
    std::get<TensorArg>(c.args[0].second).values = from_values(dt, {15, 3}, special_values(dt));
  }
  for (DType t : {DType::I64, DType::I32}) {
    std::string suffix = t == DType::I64 ? "" : "_int32";
    Case& past = add("error_index_past_end" + suffix, {5, 3}, 0, {4}, t);
    std::get<TensorArg>(past.args[2].second).values.set_int(2, 5);
    past.expect_error = "";  // the out form fails on out's shape first
    Case& neg = add("error_index_negative" + suffix, {5, 3}, 1, {4}, t);
    std::get<TensorArg>(neg.args[2].second).values.set_int(3, -1);
    neg.expect_error = "";
  }
  {
    Case& c = add("error_2d_index", {5, 3}, 0, {2, 2});
    c.expect_error = "0-d or 1-D";
  }
  {
    Case& c = add("error_float_index", {5, 3}, 0, {4});
    c.tensor("index", random(c.rng, DType::F32, {4}, {0, 4}));
    c.expect_error = "int32 or int64";
  }
  add("error_dim", {5, 3}, 2, {1}).expect_error = "dim";
  add("stress", {64, 33}, 0, {100}).stress = true;
}

}  // namespace

void add_embedding_ops(std::vector<OpInfo>& v) {
  v.push_back({"index_select.out", index_select_cases});
  v.push_back({"embedding.out", embedding_cases});
  v.push_back({"embedding_backward.out", embedding_backward_cases});
}

}  // namespace plexus::conformance
