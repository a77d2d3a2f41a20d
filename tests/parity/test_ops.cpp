// Forward results and gradients of every autograd rule against libtorch 1.13,
// in float64 on seeded random inputs: broadcasting, views, strided and
// transposed inputs, and mixed dtypes where the op takes them. Differences
// from 1.13 that plexus makes on purpose are listed in docs/semantics.md.

#include <functional>
#include <random>
#include <string>

#include "parity/torch_bridge.h"  // first: see its comment

#include <catch2/catch.hpp>
#include "plexus/autograd.h"
#include "plexus/ops.h"

using namespace plexus;
using plexus::testing::to_torch;
using plexus::testing::values;

namespace {

using Sizes = std::vector<int64_t>;
using PlexusFn = std::function<Tensor(const std::vector<Tensor>&)>;
using TorchFn = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

struct Case {
  std::string name;
  std::vector<Sizes> shapes;
  PlexusFn p;
  TorchFn t;
  double lo = -2, hi = 2;
};

Tensor random_leaf(const Sizes& sizes, std::mt19937& gen, double lo, double hi) {
  Tensor t = empty(sizes, TensorOptions(DType::F64));
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = d(gen);
  return t.requires_grad_();
}

void check_close(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": plexus " << got[i] << ", libtorch " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= 1e-10 + 1e-9 * std::abs(want[i]));
  }
}

void run(const Case& c, unsigned seed) {
  INFO(c.name);
  std::mt19937 gen(seed);
  std::vector<Tensor> px;
  std::vector<torch::Tensor> tx;
  for (const Sizes& s : c.shapes) {
    px.push_back(random_leaf(s, gen, c.lo, c.hi));
    tx.push_back(to_torch(px.back()).set_requires_grad(true));
  }
  Tensor py = c.p(px);
  torch::Tensor ty = c.t(tx);
  check_close(values(py), values(ty), "forward");
  Tensor seed_grad = random_leaf(Sizes(py.sizes().begin(), py.sizes().end()), gen, -1, 1).detach();
  py.backward(seed_grad);
  ty.backward(to_torch(seed_grad));
  for (size_t i = 0; i < px.size(); ++i) {
    torch::Tensor tg = tx[i].grad();
    Tensor pg = px[i].grad();
    if (!tg.defined()) {
      CHECK_FALSE(pg.defined());
      continue;
    }
    REQUIRE(pg.defined());
    check_close(values(pg), values(tg), "gradient of input " + std::to_string(i));
  }
}

#define P(expr) [](const std::vector<Tensor>& x) { return expr; }
#define T(expr) [](const std::vector<torch::Tensor>& x) { return expr; }

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"add_broadcast_alpha", {{3, 4}, {4}}, P(add(x[0], x[1], 2.5)), T(torch::add(x[0], x[1], 2.5))},
      {"sub_broadcast", {{3, 1}, {1, 4}}, P(sub(x[0], x[1], -0.5)), T(torch::sub(x[0], x[1], -0.5))},
      {"mul_transposed", {{4, 3}, {3, 4}}, P(mul(x[0].t(), x[1])), T(torch::mul(x[0].t(), x[1]))},
      {"div", {{2, 5}, {5}}, P(div(x[0], x[1])), T(torch::div(x[0], x[1])), 0.5, 2},
      {"pow_scalar", {{6}}, P(pow(x[0], Scalar(2.5))), T(torch::pow(x[0], 2.5)), 0.5, 2},
      {"pow_tensor", {{6}, {6}}, P(pow(x[0], x[1])), T(torch::pow(x[0], x[1])), 0.5, 2},
      {"maximum", {{3, 4}, {4}}, P(maximum(x[0], x[1])), T(torch::maximum(x[0], x[1]))},
      {"minimum", {{3, 4}, {3, 1}}, P(minimum(x[0], x[1])), T(torch::minimum(x[0], x[1]))},
      {"neg", {{7}}, P(neg(x[0])), T(torch::neg(x[0]))},
      {"abs", {{7}}, P(abs(x[0])), T(torch::abs(x[0]))},
      {"exp", {{7}}, P(exp(x[0])), T(torch::exp(x[0]))},
      {"log", {{7}}, P(log(x[0])), T(torch::log(x[0])), 0.1, 3},
      {"sqrt", {{7}}, P(sqrt(x[0])), T(torch::sqrt(x[0])), 0.1, 3},
      {"rsqrt", {{7}}, P(rsqrt(x[0])), T(torch::rsqrt(x[0])), 0.1, 3},
      {"sin_cos", {{7}}, P(add(sin(x[0]), cos(x[0]))), T(torch::sin(x[0]) + torch::cos(x[0]))},
      {"tanh", {{7}}, P(tanh(x[0])), T(torch::tanh(x[0]))},
      {"sigmoid", {{7}}, P(sigmoid(x[0])), T(torch::sigmoid(x[0]))},
      {"relu", {{3, 3}}, P(relu(x[0])), T(torch::relu(x[0]))},
      {"silu", {{7}}, P(silu(x[0])), T(torch::silu(x[0]))},
      {"gelu", {{7}}, P(gelu(x[0])), T(torch::gelu(x[0]))},
      {"gelu_tanh", {{7}}, P(gelu(x[0], "tanh")), T(torch::gelu(x[0], "tanh"))},
      {"clamp", {{9}}, P(clamp(x[0], Scalar(-0.5), Scalar(0.7))), T(torch::clamp(x[0], -0.5, 0.7))},
      {"where", {{3, 4}, {3, 4}},
       P(where(gt(x[0].detach(), Scalar(0)), x[0], x[1])),
       T(torch::where(x[0].detach() > 0, x[0], x[1]))},
      {"lerp", {{5}, {5}}, P(lerp(x[0], x[1], 0.3)), T(torch::lerp(x[0], x[1], 0.3))},
      {"addcmul", {{2, 3}, {3}, {2, 3}}, P(addcmul(x[0], x[1], x[2], 0.5)),
       T(torch::addcmul(x[0], x[1], x[2], 0.5))},
      {"addcdiv", {{2, 3}, {2, 3}, {3}}, P(addcdiv(x[0], x[1], x[2], -2)),
       T(torch::addcdiv(x[0], x[1], x[2], -2)), 0.5, 2},
      {"sum_dims", {{3, 4, 2}}, P(sum(x[0], std::vector<int64_t>{0, 2})), T(x[0].sum(std::vector<int64_t>{0, 2}))},
      {"sum_keepdim", {{3, 4}}, P(sum(x[0], std::vector<int64_t>{-1}, true)), T(x[0].sum(-1, true))},
      {"mean", {{3, 4}}, P(mean(x[0], std::vector<int64_t>{1})), T(x[0].mean(1))},
      {"mean_all", {{3, 4}}, P(mean(x[0])), T(x[0].mean())},
      {"amax", {{3, 4}}, P(amax(x[0], {1})), T(torch::amax(x[0], {1}))},
      {"amin_keepdim", {{3, 4}}, P(amin(x[0], {0}, true)), T(torch::amin(x[0], {0}, true))},
      {"mm", {{3, 4}, {4, 5}}, P(mm(x[0], x[1])), T(torch::mm(x[0], x[1]))},
      {"mm_transposed", {{4, 3}, {5, 4}}, P(mm(x[0].t(), x[1].t())), T(torch::mm(x[0].t(), x[1].t()))},
      {"bmm", {{2, 3, 4}, {2, 4, 2}}, P(bmm(x[0], x[1])), T(torch::bmm(x[0], x[1]))},
      {"addmm", {{5}, {3, 4}, {4, 5}}, P(addmm(x[0], x[1], x[2], 0.5, -2)),
       T(torch::addmm(x[0], x[1], x[2], 0.5, -2))},
      {"matmul_batched", {{2, 3, 4}, {4, 5}}, P(matmul(x[0], x[1])), T(torch::matmul(x[0], x[1]))},
      {"matmul_vector", {{4}, {2, 4, 3}}, P(matmul(x[0], x[1])), T(torch::matmul(x[0], x[1]))},
      {"linear", {{6, 4}, {3, 4}, {3}}, P(linear(x[0], x[1], x[2])),
       T(torch::nn::functional::linear(x[0], x[1], x[2]))},
      {"softmax", {{3, 5}}, P(softmax(x[0], 1)), T(torch::softmax(x[0], 1))},
      {"log_softmax", {{3, 5}}, P(log_softmax(x[0], 0)), T(torch::log_softmax(x[0], 0))},
      {"layer_norm", {{3, 2, 4}, {2, 4}, {2, 4}}, P(layer_norm(x[0], {2, 4}, x[1], x[2], 1e-3)),
       T(torch::layer_norm(x[0], {2, 4}, x[1], x[2], 1e-3))},
      {"mse_loss", {{4, 3}, {4, 3}}, P(mse_loss(x[0], x[1])), T(torch::mse_loss(x[0], x[1]))},
      {"mse_loss_sum", {{4, 3}, {4, 3}}, P(mse_loss(x[0], x[1], 2)),
       T(torch::mse_loss(x[0], x[1], torch::Reduction::Sum))},
      {"views", {{3, 4}},
       P(mul(x[0].t().slice(0, 1, 4, 2).unsqueeze(0).expand({2, 2, 3}), 3.0)),
       T(x[0].t().slice(0, 1, 4, 2).unsqueeze(0).expand({2, 2, 3}) * 3.0)},
      {"select_narrow_reshape", {{4, 6}}, P(exp(x[0].narrow(1, 1, 4).reshape({2, 8}).select(0, 1))),
       T(torch::exp(x[0].narrow(1, 1, 4).reshape({2, 8}).select(0, 1)))},
      {"as_strided", {{12}}, P(sin(x[0].as_strided({3, 2}, {3, 1}, 2))),
       T(torch::sin(x[0].as_strided({3, 2}, {3, 1}, 2)))},
      {"cat", {{2, 3}, {2, 1}, {2, 2}}, P(cat({x[0], x[1], x[2]}, 1)),
       T(torch::cat({x[0], x[1], x[2]}, 1))},
      {"conv2d", {{2, 3, 7, 6}, {4, 3, 3, 3}, {4}}, P(conv2d(x[0], x[1], x[2])),
       T(torch::conv2d(x[0], x[1], x[2]))},
      {"conv2d_stride_padding_dilation_groups", {{2, 4, 9, 8}, {6, 2, 3, 2}, {6}},
       P(conv2d(x[0], x[1], x[2], {2, 1}, {1, 2}, {2, 1}, 2)),
       T(torch::conv2d(x[0], x[1], x[2], {2, 1}, {1, 2}, {2, 1}, 2))},
      {"conv2d_depthwise_transposed_input", {{2, 3, 6, 5}, {3, 1, 3, 3}},
       P(conv2d(x[0].transpose(2, 3), x[1], {}, {1}, {1}, {1}, 3)),
       T(torch::conv2d(x[0].transpose(2, 3), x[1], {}, 1, 1, 1, 3))},
      {"conv2d_unbatched", {{2, 5, 5}, {3, 2, 2, 2}}, P(conv2d(x[0], x[1], {}, {2})),
       T(torch::conv2d(x[0], x[1], {}, 2))},
      {"max_pool2d", {{2, 3, 6, 6}}, P(max_pool2d(x[0], {2})), T(torch::max_pool2d(x[0], {2}))},
      {"max_pool2d_overlapping_padding", {{2, 2, 7, 6}}, P(max_pool2d(x[0], {3}, {1}, {1})),
       T(torch::max_pool2d(x[0], {3}, {1}, {1}))},
      {"max_pool2d_dilation_ceil", {{1, 2, 10, 9}}, P(max_pool2d(x[0], {3, 2}, {2, 3}, {1}, {2, 1}, true)),
       T(torch::max_pool2d(x[0], {3, 2}, {2, 3}, {1}, {2, 1}, true))},
      {"max_pool2d_strided_input", {{1, 2, 8, 12}},
       P(max_pool2d(x[0].slice(3, 0, 12, 2), {2}, {1})),
       T(torch::max_pool2d(x[0].slice(3, 0, 12, 2), {2}, {1}))},
      {"to_float32_and_back", {{5}}, P(mul(x[0].to(DType::F32).to(DType::F64), 2.0)),
       T(x[0].to(torch::kFloat32).to(torch::kFloat64) * 2.0)},
  };
  return all;
}

}  // namespace

TEST_CASE("every rule's forward result and gradients match libtorch 1.13 (float64)", "[parity]") {
  unsigned seed = 100;
  for (const Case& c : cases()) run(c, seed++);
}

// Ties in max_pool2d: libtorch gives a window's gradient to its first
// maximum in row-major order, as plexus does; small integers make ties in
// every window.
TEST_CASE("max_pool2d's gradient with ties matches libtorch", "[parity]") {
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> d(-2, 2);
  Tensor x = empty({2, 2, 7, 7}, TensorOptions(DType::F64));
  for (int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = d(gen);
  x.requires_grad_();
  torch::Tensor tx = to_torch(x).set_requires_grad(true);
  Tensor py = max_pool2d(x, {3}, {2}, {1});
  torch::Tensor ty = torch::max_pool2d(tx, {3}, {2}, {1});
  Tensor g = random_leaf(Sizes(py.sizes().begin(), py.sizes().end()), gen, -1, 1).detach();
  py.backward(g);
  ty.backward(to_torch(g));
  check_close(values(x.grad()), values(tx.grad()), "gradient");
}

TEST_CASE("index_select's forward and gradient match libtorch, repeated indices", "[parity]") {
  std::mt19937 gen(8);
  Tensor x = random_leaf({5, 4, 3}, gen, -1, 1);
  torch::Tensor tx = to_torch(x).set_requires_grad(true);
  for (int64_t dim : {0, 1, -1}) {
    INFO("dim " << dim);
    x.set_grad(Tensor());
    if (tx.grad().defined()) tx.grad().zero_();
    Tensor pi = tensor<int64_t>({2, 0, 2, 1});
    torch::Tensor ti = torch::tensor(std::vector<int64_t>{2, 0, 2, 1});
    Tensor py = index_select(x, dim, pi);
    torch::Tensor ty = torch::index_select(tx, dim, ti);
    check_close(values(py), values(ty), "forward");
    Tensor g = random_leaf(Sizes(py.sizes().begin(), py.sizes().end()), gen, -1, 1).detach();
    py.backward(g);
    ty.backward(to_torch(g));
    check_close(values(x.grad()), values(tx.grad()), "gradient");
  }
}

TEST_CASE("embedding's forward and gradient match libtorch, repeated and padding indices",
          "[parity]") {
  std::mt19937 gen(7);
  Tensor w = random_leaf({6, 3}, gen, -1, 1);
  torch::Tensor tw = to_torch(w).set_requires_grad(true);
  std::vector<int64_t> idx = {1, 5, 1, 0, 2, 1};
  Tensor pi = tensor<int64_t>({1, 5, 1, 0, 2, 1}, {2, 3});
  torch::Tensor ti = torch::tensor(idx).reshape({2, 3});
  Tensor py = embedding(w, pi, 2);
  torch::Tensor ty = torch::embedding(tw, ti, 2);
  check_close(values(py), values(ty), "forward");
  Tensor g = random_leaf({2, 3, 3}, gen, -1, 1).detach();
  py.backward(g);
  ty.backward(to_torch(g));
  check_close(values(w.grad()), values(tw.grad()), "gradient");
}

// Mixed dtypes: the forward promotes (float32 with float64 gives float64),
// and each input's gradient comes back in that input's own dtype, as in
// libtorch; float32 inputs are compared at float32's precision.
TEST_CASE("mixed float32/float64 inputs: forward, and gradients in each input's dtype",
          "[parity]") {
  std::mt19937 gen(21);
  Tensor a = random_leaf({3, 4}, gen, -2, 2).detach().to(DType::F32).requires_grad_();
  Tensor b = random_leaf({4}, gen, 0.5, 2);
  torch::Tensor ta = to_torch(a).set_requires_grad(true), tb = to_torch(b).set_requires_grad(true);
  Tensor py = tanh(div(mul(a, b), add(b, 1.0)));
  torch::Tensor ty = torch::tanh(ta * tb / (tb + 1.0));
  REQUIRE(py.dtype() == DType::F64);
  REQUIRE(ty.scalar_type() == torch::kFloat64);
  check_close(values(py), values(ty), "forward");
  Tensor g = random_leaf({3, 4}, gen, -1, 1).detach();
  py.backward(g);
  ty.backward(to_torch(g));
  REQUIRE(a.grad().dtype() == DType::F32);
  REQUIRE(ta.grad().scalar_type() == torch::kFloat32);
  REQUIRE(b.grad().dtype() == DType::F64);
  // a's gradient was rounded to float32 once, on both sides.
  std::vector<double> ga = values(a.grad()), tga = values(ta.grad());
  REQUIRE(ga.size() == tga.size());
  for (size_t i = 0; i < ga.size(); ++i) CHECK(std::abs(ga[i] - tga[i]) <= 1e-6 * (1 + std::abs(tga[i])));
  check_close(values(b.grad()), values(tb.grad()), "gradient of the float64 input");
}
