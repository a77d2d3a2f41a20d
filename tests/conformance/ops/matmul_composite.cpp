// Conformance cases of matmul and linear, the catalog's direct composites
// over mm, bmm and addmm (no kernels): run by `plexus-conformance
// --composites` on the plugin's device.
//
// Shapes cover every rank pairing matmul folds or batches (1-D with 1-D,
// 1-D with a batch expanded to stride 0, issue 17's bug 1), transposed and
// strided operands, and empty ones. Operands of two dtypes must be refused by
// the composite with a message about the dtypes, never computed in one of them.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ops/common.h"
#include "reference/linalg.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

// `t` as [batch..., rows, cols] broadcast to batch `b`, flattened to [B, rows, cols].
ref::Tensor batched(const ref::Tensor& t, const ref::Sizes& b) {
  ref::Sizes full = b;
  full.insert(full.end(), t.sizes.end() - 2, t.sizes.end());
  ref::Tensor out(t.dtype, full);
  ref::for_each_index(full, [&](const ref::Sizes& idx, int64_t flat) {
    int64_t from = ref::broadcast_index(t.sizes, full, idx);
    if (t.integral()) out.set_int(flat, t.at_int(from));
    else out.set_float(flat, t.at(from));
  });
  int64_t nb = ref::numel_of(b);
  out.sizes = {nb, full[full.size() - 2], full.back()};
  return out;
}

ref::Tensor abs_of(ref::Tensor t) {
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (t.integral()) t.set_int(k, std::abs(t.at_int(k)));
    else t.set_float(k, std::abs(t.at(k)));
  }
  return t;
}

// matmul's definition: 1-D operands become a row (self) or a column (other)
// that the result drops again; batch dims broadcast.
Expected matmul_expected(ref::Tensor a, ref::Tensor b) {
  const bool va = a.dim() == 1, vb = b.dim() == 1;
  if (va) a.sizes.insert(a.sizes.begin(), 1);
  if (vb) b.sizes.push_back(1);
  ref::Sizes ba(a.sizes.begin(), a.sizes.end() - 2), bb(b.sizes.begin(), b.sizes.end() - 2);
  ref::Sizes batch = ref::broadcast_shapes(ba, bb);
  ref::Tensor x = batched(a, batch), y = batched(b, batch);
  Expected e = expect(ref::bmm(x, y));
  ref::Sizes out = batch;
  if (!va) out.push_back(x.sizes[1]);
  if (!vb) out.push_back(y.sizes[2]);
  e.values.sizes = out;
  if (is_floating(a.dtype)) {
    ref::Tensor s = ref::bmm(abs_of(x), abs_of(y));
    e.scale = accumulation_scale(a.dtype, s.f, x.sizes[2]);
  }
  return e;
}

ref::Tensor transposed(const ref::Tensor& w) {
  if (w.dim() < 2) return w;
  ref::Tensor t(w.dtype, {w.sizes[1], w.sizes[0]});
  ref::for_each_index(t.sizes, [&](const ref::Sizes& idx, int64_t flat) {
    int64_t from = idx[1] * w.sizes[1] + idx[0];
    if (w.integral()) t.set_int(flat, w.at_int(from));
    else t.set_float(flat, w.at(from));
  });
  return t;
}

// linear: input @ weight^T + bias (bias rounds in once more).
Expected linear_expected(const Inputs& in) {
  Expected e = matmul_expected(in["input"], transposed(in["weight"]));
  if (!in.has("bias")) return e;
  const ref::Tensor& bias = in["bias"];
  ref::Tensor sum = ref::map2(e.values, bias, [](double x, double y) { return x + y; },
                              [](int64_t x, int64_t y) { return ref::wrapping_add(x, y); });
  // The product may round once before the bias is added.
  for (size_t k = 0; k < e.scale.size(); ++k) e.scale[k] += std::abs(e.values.at(static_cast<int64_t>(k)));
  e.values = sum;
  return e;
}

struct Shapes {
  const char* name;
  ref::Sizes a, b;
  uint32_t la = Contiguous, lb = Contiguous;
};

const std::vector<Shapes> kMatmulShapes = {
    {"dot", {7}, {7}},
    {"matrix_vector", {5, 7}, {7}, Transposed},
    {"vector_matrix", {7}, {7, 4}, Contiguous, Strided},
    {"matrix", {5, 7}, {7, 4}, Offset, Transposed},
    {"folded_batch", {2, 3, 5, 7}, {7, 4}, Strided},
    {"batch_vector", {3, 5, 7}, {7}},
    {"vector_batch", {5}, {3, 5, 4}, Contiguous, Transposed},
    {"vector_expanded_batch", {5}, {3, 5, 5}, Contiguous, Expanded},
    {"batch_broadcast", {2, 1, 3, 4}, {5, 4, 2}, Expanded, Transposed},
    {"matrix_batch", {3, 4}, {2, 4, 6}},
    {"empty_batch", {0, 3, 4}, {4, 2}},
    {"empty_contraction", {3, 0}, {0, 2}},
};

void matmul_cases(CaseSet& set) {
  const DType dt = set.dtype();
  for (const Shapes& s : kMatmulShapes) {
    Case& c = set.add(s.name);
    c.tensor("self", wide(c.rng, dt, s.a), s.la).tensor("other", wide(c.rng, dt, s.b), s.lb);
    c.ref([](const Inputs& in) { return matmul_expected(in["self"], in["other"]); });
    c.tolerance(is_floating(dt) ? kAccumulated : Tolerance{});
  }
  // Mixed dtypes: refused by the dtypes, whichever product matmul picks.
  const DType other = dt == DType::F32 ? DType::I64 : DType::F32;
  for (const Shapes& s : {kMatmulShapes[0], kMatmulShapes[3], kMatmulShapes[5], kMatmulShapes[8]}) {
    Case& c = set.add(std::string("error_mixed_") + s.name);
    c.tensor("self", wide(c.rng, dt, s.a), s.la).tensor("other", wide(c.rng, other, s.b), s.lb);
    c.expect_error = "matmul expects self and other to have the same dtype";
  }
  Case& bad = set.add("error_inner");
  bad.tensor("self", wide(bad.rng, dt, {3, 4})).tensor("other", wide(bad.rng, dt, {5}));
  bad.expect_error = "";
}

void linear_cases(CaseSet& set) {
  const DType dt = set.dtype();
  auto add = [&](const std::string& name, ref::Sizes in, ref::Sizes w, std::optional<ref::Sizes> b,
                 uint32_t lw = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("input", wide(c.rng, dt, in)).tensor("weight", wide(c.rng, dt, w), lw);
    if (b) c.tensor("bias", wide(c.rng, dt, *b));
    c.ref(linear_expected).tolerance(is_floating(dt) ? Tolerance{.ulps = 2, .acc = 2} : Tolerance{});
    return c;
  };
  add("matrix_bias", {3, 5}, {4, 5}, ref::Sizes{4}, Transposed);
  add("matrix", {3, 5}, {4, 5}, std::nullopt);
  add("vector_bias", {5}, {4, 5}, ref::Sizes{4});
  add("batch_bias", {2, 3, 5}, {4, 5}, ref::Sizes{4}, Strided);
  add("weight_vector", {3, 5}, {5}, std::nullopt);
  add("empty_batch", {0, 5}, {4, 5}, ref::Sizes{4});
  // Mixed dtypes: input with weight, and bias with both (refused, named).
  const DType other = dt == DType::F32 ? DType::I64 : DType::F32;
  for (int k = 0; k < 3; ++k) {
    Case& c = set.add(std::string("error_mixed_") + (k == 0 ? "weight" : k == 1 ? "bias" : "bias_batch"));
    c.tensor("input", wide(c.rng, dt, k == 2 ? ref::Sizes{2, 3, 5} : ref::Sizes{3, 5}))
        .tensor("weight", wide(c.rng, k == 0 ? other : dt, {4, 5}))
        .tensor("bias", wide(c.rng, k == 0 ? dt : other, {4}));
    c.expect_error = k == 0 ? "linear expects input and weight to have the same dtype"
                            : "linear expects input and bias to have the same dtype";
  }
}

}  // namespace

void add_matmul_composite_ops(std::vector<OpInfo>& v) {
  const DTypeSet numeric = DTypeSet::integral() | DTypeSet::floating();
  v.push_back({"matmul", matmul_cases, numeric});
  v.push_back({"linear", linear_cases, numeric});
}

}  // namespace plexus::conformance
