// Every derivative rule against central differences (gradcheck), in float64,
// with broadcasting, views and non-contiguous inputs where the op takes them.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/random.h"
#include "plexus/autograd.h"
#include "plexus/ops.h"

using namespace plexus;
using plexus::autograd::gradcheck;
using plexus::testing::leaf;
using Inputs = std::vector<Tensor>;

TEST_CASE("binary rules: add, sub, mul, div with broadcasting and alpha", "[rules]") {
  Tensor a = leaf({3, 4}, 1), b = leaf({4}, 2), c = leaf({3, 1}, 3, 0.5, 2);
  CHECK(gradcheck([](const Inputs& x) { return add(x[0], x[1], 2.5); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return sub(x[0], x[1], -1.5); }, {a, c}));
  CHECK(gradcheck([](const Inputs& x) { return mul(x[0], x[1]); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return div(x[0], x[1]); }, {a, c}));
  CHECK(gradcheck([](const Inputs& x) { return mul(x[0], 3.0); }, {a}));
}

TEST_CASE("pow, maximum and minimum rules, ties included", "[rules]") {
  Tensor pos = leaf({2, 3}, 4, 0.5, 2), e = leaf({2, 3}, 5, -1, 2);
  CHECK(gradcheck([](const Inputs& x) { return pow(x[0], Scalar(3.0)); }, {pos}));
  CHECK(gradcheck([](const Inputs& x) { return pow(x[0], Scalar(-0.5)); }, {pos}));
  CHECK(gradcheck([](const Inputs& x) { return pow(x[0], x[1]); }, {pos, e}));
  Tensor a = leaf({5}, 6), b = leaf({5}, 7);
  CHECK(gradcheck([](const Inputs& x) { return maximum(x[0], x[1]); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return minimum(x[0], x[1]); }, {a, b}));
  // Equal inputs share the gradient: each gets half.
  Tensor t = leaf({3}, 8);
  Tensor u = t.detach().clone().requires_grad_();
  maximum(t, u).sum().backward();
  CHECK(t.grad().tolist<double>() == std::vector<double>{0.5, 0.5, 0.5});
  CHECK(u.grad().tolist<double>() == std::vector<double>{0.5, 0.5, 0.5});
}

TEST_CASE("unary rules", "[rules]") {
  Tensor x = leaf({2, 5}, 9), pos = leaf({2, 5}, 10, 0.3, 3);
  using F = Tensor (*)(const Tensor&);
  for (auto [name, f] : {std::pair<const char*, F>{"neg", neg}, {"abs", abs}, {"exp", exp},
                         {"sin", sin}, {"cos", cos}, {"tanh", tanh}, {"sigmoid", sigmoid},
                         {"relu", relu}, {"silu", silu}}) {
    INFO(name);
    CHECK(gradcheck([f](const Inputs& v) { return f(v[0]); }, {x}));
  }
  for (auto [name, f] : {std::pair<const char*, F>{"log", log}, {"sqrt", sqrt}, {"rsqrt", rsqrt}}) {
    INFO(name);
    CHECK(gradcheck([f](const Inputs& v) { return f(v[0]); }, {pos}));
  }
  for (const char* mode : {"none", "tanh"}) {
    INFO(mode);
    CHECK(gradcheck([mode](const Inputs& v) { return gelu(v[0], mode); }, {x}));
  }
  CHECK(gradcheck([](const Inputs& v) { return clamp(v[0], Scalar(-0.5), Scalar(1.0)); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return clamp(v[0], std::nullopt, Scalar(0.25)); }, {x}));
}

TEST_CASE("pointwise rules: where, lerp, addcmul, addcdiv", "[rules]") {
  Tensor a = leaf({3, 4}, 11), b = leaf({3, 4}, 12), c = leaf({4}, 13, 0.5, 2);
  Tensor cond = gt(a.detach(), Scalar(0));
  CHECK(gradcheck([cond](const Inputs& x) { return where(cond, x[0], x[1]); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return lerp(x[0], x[1], 0.3); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return addcmul(x[0], x[1], x[2], 0.5); }, {a, b, c}));
  CHECK(gradcheck([](const Inputs& x) { return addcdiv(x[0], x[1], x[2], -2); }, {a, b, c}));
}

TEST_CASE("reduction rules: sum, mean, amax, amin over dims", "[rules]") {
  Tensor x = leaf({3, 4, 2}, 14);
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0]); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], std::vector<int64_t>{0, 2}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], std::vector<int64_t>{-1}, true); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mean(v[0], std::vector<int64_t>{1}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mean(v[0]); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return amax(v[0], {1}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return amin(v[0], {0, 2}, true); }, {x}));
}

TEST_CASE("matrix product rules: mm, bmm, addmm, and matmul and linear through them",
          "[rules]") {
  Tensor a = leaf({3, 4}, 15), b = leaf({4, 2}, 16), bias = leaf({2}, 17);
  CHECK(gradcheck([](const Inputs& x) { return mm(x[0], x[1]); }, {a, b}));
  CHECK(gradcheck([](const Inputs& x) { return addmm(x[2], x[0], x[1], 0.5, -2); }, {a, b, bias}));
  Tensor p = leaf({2, 3, 4}, 18), q = leaf({2, 4, 5}, 19);
  CHECK(gradcheck([](const Inputs& x) { return bmm(x[0], x[1]); }, {p, q}));
  CHECK(gradcheck([](const Inputs& x) { return matmul(x[0], x[1]); }, {p, b}));
  Tensor w = leaf({2, 4}, 20);
  CHECK(gradcheck([](const Inputs& x) { return linear(x[0], x[1], x[2]); }, {a, w, bias}));
}

TEST_CASE("softmax and log_softmax rules", "[rules]") {
  Tensor x = leaf({3, 5}, 21);
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], 1); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], 0); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return log_softmax(v[0], -1); }, {x}));
  // Over a non-contiguous input, and with the result in another dtype.
  Tensor t = leaf({4, 3}, 38);
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0].t(), 1); }, {t}));
  Tensor f32 = leaf({2, 4}, 39).detach().to(DType::F32).requires_grad_();
  softmax(f32, 1, DType::F64).select(1, 0).sum().backward();
  CHECK(f32.grad().dtype() == DType::F32);
}

TEST_CASE("the activations' gradients: relu's mask keeps a NaN gradient out", "[rules]") {
  Tensor x = tensor<double>({-1.0, 2.0, 0.0}).requires_grad_();
  Tensor y = relu(x);
  y.backward(tensor<double>({std::nan(""), 5.0, std::nan("")}));
  std::vector<double> g = x.grad().tolist<double>();
  CHECK(g[0] == 0);  // masked: 0, not NaN * 0
  CHECK(g[1] == 5);
  CHECK(g[2] == 0);
  CHECK(y.grad_fn()->name() == "ReluBackward");
}

TEST_CASE("mse_loss rule, with broadcasting between self and target", "[rules]") {
  Tensor a = leaf({4, 3}, 22), b = leaf({4, 3}, 23), row = leaf({3}, 36);
  for (int64_t reduction : {0, 1, 2}) {
    INFO("reduction " << reduction);
    CHECK(gradcheck([reduction](const Inputs& x) { return mse_loss(x[0], x[1], reduction); },
                    {a, b}));
    CHECK(gradcheck([reduction](const Inputs& x) { return mse_loss(x[0], x[1], reduction); },
                    {a, row}));
  }
  // One node, not the decomposition's.
  CHECK(mse_loss(a, b).grad_fn()->name() == "MseLossBackward");
}

TEST_CASE("views: gradients flow back through every view", "[rules][views]") {
  Tensor x = leaf({3, 4}, 24);
  CHECK(gradcheck([](const Inputs& v) { return mul(v[0].t(), 2.0); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mul(v[0].view({4, 3}), 2.0); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].reshape({2, 6}).exp(); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mul(v[0].slice(1, 1, 4, 2), 3.0); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].select(0, 2).exp(); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].narrow(0, 1, 2).sin(); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].unsqueeze(1).expand({3, 5, 4}).sin(); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].permute({1, 0}).unsqueeze(0).squeeze(0).exp(); },
                  {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].flatten().slice(0, 2, 9).cos(); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].as_strided({2, 2}, {4, 1}, 1).exp(); }, {x}));
  // Views of an expanded view (its elements share memory).
  CHECK(gradcheck([](const Inputs& v) { return v[0].unsqueeze(1).expand({3, 2, 4}).select(1, 1).exp(); },
                  {x}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].unsqueeze(0).expand({2, 3, 4}).transpose(0, 2).sin(); },
                  {x}));
  // Views of a view of a strided (transposed) leaf.
  CHECK(gradcheck([](const Inputs& v) { return v[0].t().slice(0, 1, 3).select(1, 1).exp(); }, {x}));
}

TEST_CASE("copies: to() between dtypes, clone, copy_ into a fresh tensor", "[rules]") {
  Tensor x = leaf({2, 3}, 25);
  CHECK(gradcheck([](const Inputs& v) { return mul(v[0].to(DType::F32).to(DType::F64), 2.0); },
                  {x}, {.eps = 1e-3, .atol = 1e-4, .rtol = 1e-3}));
  CHECK(gradcheck([](const Inputs& v) { return v[0].clone().exp(); }, {x}));
  CHECK(gradcheck(
      [](const Inputs& v) {
        Tensor out = zeros({4, 2, 3}, TensorOptions(DType::F64));
        out.copy_(v[0]);  // broadcast over the new leading dim
        return mul(out, out);
      },
      {x}));
}

TEST_CASE("gradcheck reports a wrong gradient, naming the input and element", "[rules]") {
  Tensor x = leaf({3}, 26);
  // detach() hides one factor from autograd: backward gives x, the truth is 2x.
  auto wrong = [](const Inputs& v) { return mul(v[0].detach(), v[0]); };
  // Fast mode's projection disagrees, and the full check then names the element.
  CHECK_THROWS_WITH(gradcheck(wrong, {x}),
                    Catch::Contains("input 0[0]") && Catch::Contains("central differences"));
  CHECK_THROWS_WITH(gradcheck(wrong, {x}, {.fast = false}), Catch::Contains("input 0[0]"));
  // Only the second input's gradient is wrong: the message names it.
  Tensor w = leaf({3}, 30);
  CHECK_THROWS_WITH(
      gradcheck([](const Inputs& v) { return add(v[0], mul(v[1].detach(), v[1])); }, {x, w}),
      Catch::Contains("input 1[0]"));
  Tensor ints = ones({3}, TensorOptions(DType::I64));
  CHECK_THROWS_WITH(gradcheck([](const Inputs& v) { return v[0]; }, {ints}),
                    Catch::Contains("no input requires grad"));
}

TEST_CASE("gradcheck: fast and full modes agree on right rules, and float32 has its own "
          "tolerances", "[rules]") {
  Tensor a = leaf({4, 3}, 31), b = leaf({3, 5}, 32);
  auto f = [](const Inputs& v) { return tanh(mm(v[0], v[1])); };
  CHECK(gradcheck(f, {a, b}));
  CHECK(gradcheck(f, {a, b}, {.fast = false}));
  CHECK(gradcheck(f, {a, b}, {.seed = 7}));
  Tensor a32 = a.detach().to(DType::F32).requires_grad_();
  Tensor b32 = b.detach().to(DType::F32).requires_grad_();
  CHECK(gradcheck(f, {a32, b32}));
  // float64's tolerances on float32 differences fail: the defaults are per dtype.
  CHECK_THROWS(gradcheck(f, {a32, b32}, {.eps = 1e-6, .atol = 1e-5, .rtol = 1e-3, .fast = false}));
  // float32 finds a wrong gradient too.
  CHECK_THROWS_WITH(gradcheck([](const Inputs& v) { return mul(v[0].detach(), v[0]); }, {a32}),
                    Catch::Contains("input 0[0]"));
  CHECK_THROWS_WITH(gradcheck(f, {a32, b}), Catch::Contains("must share a dtype"));
}

TEST_CASE("layer_norm rule, with and without weight and bias", "[rules]") {
  Tensor x = leaf({3, 2, 4}, 27), w = leaf({2, 4}, 28), b = leaf({2, 4}, 29);
  CHECK(gradcheck([](const Inputs& v) { return layer_norm(v[0], {4}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return layer_norm(v[0], {2, 4}, v[1], v[2], 1e-3); },
                  {x, w, b}));
}

TEST_CASE("embedding rule: repeated indices add up, the padding row gets nothing", "[rules]") {
  Tensor weight = leaf({5, 3}, 30);
  Tensor idx = tensor<int64_t>({1, 3, 1, 4, 0, 1}, {2, 3});
  CHECK(gradcheck([idx](const Inputs& v) { return embedding(v[0], idx); }, {weight}));
  embedding(weight, idx, 4).sum().backward();
  std::vector<double> g = weight.grad().tolist<double>();
  CHECK(g[1 * 3] == 3);  // row 1 was picked three times
  CHECK(g[2 * 3] == 0);  // row 2 never
  CHECK(g[4 * 3] == 0);  // row 4 is the padding row
  // A negative padding_idx other than -1 counts from the end, as in forward.
  Tensor w2 = leaf({5, 3}, 37);
  embedding(w2, idx, -2).sum().backward();
  std::vector<double> g2 = w2.grad().tolist<double>();
  CHECK(g2[3 * 3] == 0);  // row 3 = 5 - 2 is the padding row
  CHECK(g2[1 * 3] == 3);
}

TEST_CASE("cat rule: each input gets its slice, along any dim", "[rules]") {
  Tensor a = leaf({2, 3}, 31), b = leaf({2, 1}, 32), c = leaf({2, 2}, 33);
  CHECK(gradcheck([](const Inputs& v) { return cat({v[0], v[1], v[2]}, 1); }, {a, b, c}));
  CHECK(gradcheck([](const Inputs& v) { return cat({v[0].t(), v[0].t().slice(0, 0, 2)}, 0); }, {a}));
  // Only some inputs require grad.
  Tensor fixed = leaf({2, 3}, 34).detach();
  CHECK(gradcheck([fixed](const Inputs& v) { return cat({fixed, v[0]}, -1); }, {a}));
}

TEST_CASE("embedding with scale_grad_by_freq divides each row by how often it was picked",
          "[rules]") {
  Tensor weight = leaf({4, 2}, 35);
  Tensor idx = tensor<int64_t>({1, 1, 3});
  // Not the derivative (PyTorch's convention), so no gradcheck: the values.
  embedding(weight, idx, -1, true).sum().backward();
  std::vector<double> g = weight.grad().tolist<double>();
  CHECK(g[2] == 1);  // row 1: two positions, each gradient 1, divided by 2
  CHECK(g[6] == 1);  // row 3: one position
  CHECK(g[0] == 0);
}

TEST_CASE("index_select rule: repeated indices add up, along any dim", "[rules]") {
  Tensor x = leaf({4, 5, 3}, 40);
  Tensor rows = tensor<int64_t>({3, 0, 3, 1});
  Tensor cols = tensor<int32_t>({4, 4, 2});
  CHECK(gradcheck([rows](const Inputs& v) { return index_select(v[0], 0, rows); }, {x}));
  CHECK(gradcheck([cols](const Inputs& v) { return index_select(v[0], 1, cols); }, {x}));
  CHECK(gradcheck([rows](const Inputs& v) { return index_select(v[0].transpose(0, 2), -1, rows); },
                  {x}));
  Tensor one = tensor<int64_t>({2});
  CHECK(gradcheck([one](const Inputs& v) { return index_select(v[0], 2, one.reshape({})); }, {x}));
  // The values: row 3 picked twice gets twice the gradient; row 2 none.
  Tensor w = leaf({4, 2}, 41);
  index_select(w, 0, rows).sum().backward();
  CHECK(w.grad().tolist<double>() == std::vector<double>{1, 1, 1, 1, 0, 0, 2, 2});
  CHECK_THROWS_WITH(index_select(w, 0, tensor<int64_t>({1, 4})),
                    Catch::Contains("index_select") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(index_select(w, 0, tensor<double>({1.0})), Catch::Contains("int32 or int64"));
}
