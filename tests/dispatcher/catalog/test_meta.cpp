// Meta functions and composites of the reduce, matmul, softmax, layer_norm, conv,
// pool, embedding and shape families: output shapes and dtypes, what the kernels
// receive, every rejected input, and which kernels the composites reach.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "plexus/ops.h"
#include "support/error_of.h"
#include "support/test_backend.h"

using namespace plexus;
using namespace plexus::testing;
using Catch::Matchers::Contains;
using Sizes = std::vector<int64_t>;

namespace {

// One kernel call as the tracing kernel saw it; args as text ("f32[2, 3]",
// "[0, 1]", "1", "None", "{f32[2], f32[3]}").
struct Traced {
  std::string op;
  DType dtype;
  std::vector<std::string> args;
};
std::vector<Traced>& trace() {
  static std::vector<Traced> t;
  return t;
}

std::string tensor_text(const Tensor& t) {
  return fmt::format("{}{}", dtype_name(t.dtype()), shape_str(t.sizes()));
}
std::string value_text(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None:
      return "None";
    case Value::Tag::Tensor:
      return tensor_text(v.to_tensor());
    case Value::Tag::TensorList: {
      std::vector<std::string> parts;
      for (const Tensor& t : v.to_tensor_list()) parts.push_back(tensor_text(t));
      return fmt::format("{{{}}}", fmt::join(parts, ", "));
    }
    case Value::Tag::IntList:
      return shape_str(v.to_int_list());
    case Value::Tag::Int:
      return std::to_string(v.to_int());
    case Value::Tag::Bool:
      return v.to_bool() ? "True" : "False";
    case Value::Tag::Scalar:
      return v.to_scalar().str();
    default:
      return std::string(Value::tag_name(v.tag()));
  }
}

// A kernel to run after tracing (ctx of tracing_kernel), or none.
struct Then {
  KernelFn fn = nullptr;
};

// Records the call in trace(), then runs the kernel in ctx, if any.
void tracing_kernel(void* ctx, KernelCall& call) {
  Traced t{call.op.name(), call.dtype, {}};
  for (const Value& v : call.args) t.args.push_back(value_text(v));
  trace().push_back(std::move(t));
  if (auto* then = static_cast<Then*>(ctx); then && then->fn) then->fn(nullptr, call);
}

// The ops that trace() saw, in order.
std::vector<std::string> traced_ops() {
  std::vector<std::string> ops;
  for (const Traced& t : trace()) ops.push_back(t.op);
  return ops;
}

// Traces one kernel op on the cpu for a scope, for every dtype.
struct Tracing {
  ScopedKernel kernel;
  explicit Tracing(std::string op, Then* then = nullptr)
      : kernel(std::move(op), kCPU, tracing_kernel, DTypeSet::all(), then) {
    trace().clear();
  }
};

// f32 product of mm.out ([n, k] @ [k, p]) or bmm.out (batched), any strides.
void reference_matmul(void*, KernelCall& call) {
  const Tensor& a = call.args[0].to_tensor();
  const Tensor& b = call.args[1].to_tensor();
  const Tensor& out = call.args.back().to_tensor();
  bool batched = a.dim() == 3;
  int64_t nb = batched ? a.size(0) : 1, n = a.size(-2), k = a.size(-1), p = b.size(-1);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < p; ++c) {
        float acc = 0;
        for (int64_t j = 0; j < k; ++j)
          acc += pa[(batched ? i * a.stride(0) : 0) + r * a.stride(-2) + j * a.stride(-1)] *
                 pb[(batched ? i * b.stride(0) : 0) + j * b.stride(-2) + c * b.stride(-1)];
        po[(batched ? i * out.stride(0) : 0) + r * out.stride(-2) + c * out.stride(-1)] = acc;
      }
}
Then run_matmul{reference_matmul};
Then run_add{reference_add_kernel};


// Checks f raises InvalidArgument naming `arg`, with `text` in the message.
template <typename F>
void check_rejects(F&& f, const std::string& arg, const std::string& text) {
  Error e = error_of(std::forward<F>(f));
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(e.context().argument == arg);
  CHECK_THAT(e.message(), Contains(text));
}

Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}

Tensor f32(IntArrayRef sizes) {
  return zeros(sizes, DType::F32);
}
Tensor of(IntArrayRef sizes, DType t) {
  return zeros(sizes, t);
}

}  // namespace

// ---------------------------------------------------------------- reductions

TEST_CASE("sum: output shapes and the dims the kernel receives") {
  Tracing k("sum.IntList_out");
  Tensor x = f32({2, 3, 4});

  CHECK(sizes_of(x.sum()) == Sizes{});
  CHECK(trace().back().args[1] == "[0, 1, 2]");  // None arrives as every dim
  CHECK(trace().back().args.back() == "float32[]");

  CHECK(sizes_of(sum(x, Sizes{})) == Sizes{});  // [] reduces every dim too
  CHECK(trace().back().args[1] == "[0, 1, 2]");

  CHECK(sizes_of(x.sum(Sizes{1})) == Sizes{2, 4});
  CHECK(sizes_of(x.sum(Sizes{1}, true)) == Sizes{2, 1, 4});
  CHECK(sizes_of(x.sum(std::nullopt, true)) == Sizes{1, 1, 1});

  // Negative dims are wrapped and the list sorted.
  CHECK(sizes_of(x.sum(Sizes{-1, 0})) == Sizes{3});
  CHECK(trace().back().args[1] == "[0, 2]");
  CHECK(trace().back().args[0] == "float32[2, 3, 4]");

  SECTION("a 0-d tensor accepts dim 0 and -1 and reduces its one element") {
    Tensor s = scalar_tensor(2.0f);
    CHECK(sizes_of(s.sum(Sizes{-1})) == Sizes{});
    CHECK(trace().back().args[1] == "[]");
    CHECK(sizes_of(s.sum(Sizes{0}, true)) == Sizes{});
  }
}

TEST_CASE("sum: integral and bool inputs sum to int64 unless dtype is given") {
  Tracing k("sum.IntList_out");
  Tensor r = of({2, 3}, DType::I32).sum(Sizes{0});
  CHECK(r.dtype() == DType::I64);
  CHECK(trace().back().dtype == DType::I64);
  CHECK(trace().back().args[0] == "int64[2, 3]");  // self converted for the kernel

  CHECK(of({4}, DType::Bool).sum().dtype() == DType::I64);
  CHECK(of({4}, DType::F16).sum().dtype() == DType::F16);

  Tensor d = sum(f32({2, 3}), Sizes{1}, false, DType::F64);
  CHECK(d.dtype() == DType::F64);
  CHECK(trace().back().dtype == DType::F64);
  CHECK(trace().back().args[0] == "float64[2, 3]");

  CHECK(sum(of({3}, DType::I16), std::nullopt, false, DType::I32).dtype() == DType::I32);

  SECTION("the out variant writes the reduced shape") {
    Tensor out = of({2}, DType::I64);
    CHECK(sum_out(out, of({2, 5}, DType::U8), Sizes{1}).is_same(out));
    CHECK(trace().back().args.back() == "int64[2]");
    check_rejects(
        [&] {
          sum_out(of({3}, DType::I64), of({2, 5}, DType::U8), Sizes{1});
        },
        "out", "shape");
  }
}

TEST_CASE("sum rejects bad, repeated and out-of-range dims and a bool dtype") {
  Tracing k("sum.IntList_out");
  Tensor x = f32({2, 3, 4});
  check_rejects([&] { x.sum(Sizes{1, -2}); }, "dim", "more than once");
  check_rejects([&] { x.sum(Sizes{0, 0}); }, "dim", "more than once");
  check_rejects([&] { x.sum(Sizes{3}); }, "dim", "out of range");
  check_rejects([&] { x.sum(Sizes{-4}); }, "dim", "out of range");
  check_rejects([&] { scalar_tensor(1.0f).sum(Sizes{1}); }, "dim", "out of range");
  check_rejects([&] { sum(x, std::nullopt, false, DType::Bool); }, "dtype", "bool");
  CHECK(trace().empty());
  Error e = error_of([&] { x.sum(Sizes{1, 1}); });
  CHECK(e.context().op == "sum.dim_IntList");
}

TEST_CASE("mean: floating only; an integral input needs a floating dtype") {
  Tracing k("mean.out");
  Tensor x = f32({2, 3});
  CHECK(sizes_of(x.mean(Sizes{-1}, true)) == Sizes{2, 1});
  CHECK(trace().back().args[1] == "[1]");
  CHECK(of({2}, DType::BF16).mean().dtype() == DType::BF16);

  Tensor m = mean(of({2, 3}, DType::I64), Sizes{0}, false, DType::F32);
  CHECK(m.dtype() == DType::F32);
  CHECK(trace().back().args[0] == "float32[2, 3]");

  check_rejects([&] { of({2, 3}, DType::I32).mean(); }, "self", "floating");
  check_rejects([&] { mean(x, std::nullopt, false, DType::I64); }, "dtype", "int64");
  check_rejects([&] { x.mean(Sizes{0, -2}); }, "dim", "more than once");
}

TEST_CASE("amax and amin keep the dtype and refuse to reduce an empty dim") {
  Tracing kmax("amax.out");
  Tracing kmin("amin.out");
  Tensor x = of({2, 3, 4}, DType::I32);
  Tensor r = x.amax(Sizes{-1});
  CHECK(sizes_of(r) == Sizes{2, 3});
  CHECK(r.dtype() == DType::I32);
  CHECK(trace().back().dtype == DType::I32);
  CHECK(trace().back().args[1] == "[2]");
  CHECK(sizes_of(x.amin(Sizes{0, 2}, true)) == Sizes{1, 3, 1});
  CHECK(trace().back().op == "amin.out");
  CHECK(sizes_of(x.amax()) == Sizes{});  // [] reduces every dim
  CHECK(trace().back().args[1] == "[0, 1, 2]");
  CHECK(of({3}, DType::Bool).amax().dtype() == DType::Bool);

  // Empty dims that are kept are fine.
  CHECK(sizes_of(f32({0, 3}).amax(Sizes{1})) == Sizes{0});

  check_rejects([&] { f32({0, 3}).amax(Sizes{0}); }, "self", "size 0");
  check_rejects([&] { f32({2, 0}).amin(); }, "self", "size 0");
  check_rejects([&] { x.amax(Sizes{1, 1}); }, "dim", "more than once");
  check_rejects([&] { x.amin(Sizes{5}); }, "dim", "out of range");
}

TEST_CASE("argmax and argmin give int64 indices; dim None flattens") {
  Tracing kmax("argmax.out");
  Tracing kmin("argmin.out");
  Tensor x = of({2, 3, 4}, DType::F16);

  Tensor all = x.argmax();
  CHECK(sizes_of(all) == Sizes{});
  CHECK(all.dtype() == DType::I64);
  CHECK(trace().back().dtype == DType::F16);  // looked up by self's dtype
  CHECK(trace().back().args[0] == "float16[2, 3, 4]");
  CHECK(trace().back().args[1] == "None");
  CHECK(sizes_of(x.argmax(std::nullopt, true)) == Sizes{1, 1, 1});

  CHECK(sizes_of(x.argmin(-1)) == Sizes{2, 3});
  CHECK(trace().back().op == "argmin.out");
  CHECK(trace().back().args[1] == "2");
  CHECK(sizes_of(x.argmin(1, true)) == Sizes{2, 1, 4});

  SECTION("a 0-d self takes dim 0 or -1 and arrives with dim None") {
    CHECK(sizes_of(scalar_tensor(1.0f).argmax(-1, true)) == Sizes{});
    CHECK(trace().back().args[1] == "None");
  }
  SECTION("the out variant takes an int64 out") {
    Tensor out = of({2, 4}, DType::I64);
    CHECK(argmax_out(out, x, 1).is_same(out));
    CHECK(trace().back().args.back() == "int64[2, 4]");
  }
  SECTION("errors") {
    check_rejects([&] { f32({0}).argmax(); }, "self", "size 0");
    check_rejects([&] { f32({3, 0}).argmin(1); }, "self", "size 0");
    check_rejects([&] { x.argmax(3); }, "dim", "out of range");
    check_rejects([&] { of({3}, DType::Bool).argmax(); }, "self", "bool");
  }
  CHECK(sizes_of(f32({3, 0}).argmax(0)) == Sizes{0});  // the empty dim is kept
}

// ---------------------------------------------------------- matrix products

TEST_CASE("mm and bmm: shapes and checks") {
  Tracing kmm("mm.out");
  CHECK(sizes_of(f32({2, 3}).mm(f32({3, 5}))) == Sizes{2, 5});
  CHECK(trace().back().args ==
        std::vector<std::string>{"float32[2, 3]", "float32[3, 5]", "float32[2, 5]"});
  CHECK(mm(of({2, 3}, DType::I64), of({3, 1}, DType::I64)).dtype() == DType::I64);

  Error e = error_of([] { mm(f32({2, 3}), of({3, 5}, DType::F64)); });
  CHECK(e.context().argument == "mat2");
  CHECK(e.context().op == "mm");
  CHECK_THAT(e.message(), Contains("float32") && Contains("float64"));
  check_rejects([] { mm(f32({2, 3}), f32({4, 5})); }, "mat2", "3 columns");
  check_rejects([] { mm(f32({3}), f32({3, 5})); }, "self", "2-D");
  check_rejects([] { mm(f32({2, 3}), f32({2, 3, 5})); }, "mat2", "2-D");
  check_rejects([] { mm(of({2, 2}, DType::Bool), of({2, 2}, DType::Bool)); }, "self", "bool");

  Tracing kbmm("bmm.out");
  CHECK(sizes_of(f32({4, 2, 3}).bmm(f32({4, 3, 5}))) == Sizes{4, 2, 5});
  CHECK(trace().back().op == "bmm.out");
  check_rejects([] { bmm(f32({4, 2, 3}), f32({3, 3, 5})); }, "mat2", "batch");
  check_rejects([] { bmm(f32({4, 2, 3}), f32({4, 2, 5})); }, "mat2", "rows");
  check_rejects([] { bmm(f32({2, 3}), f32({4, 3, 5})); }, "self", "3-D");
  check_rejects([] { bmm(f32({4, 2, 3}), of({4, 3, 5}, DType::F16)); }, "mat2", "float16");
}

TEST_CASE("addmm: the kernel gets self expanded to [n, p]") {
  Tracing k("addmm.out");
  Tensor r = addmm(f32({5}), f32({2, 3}), f32({3, 5}), 0.5, 2);
  CHECK(sizes_of(r) == Sizes{2, 5});
  CHECK(trace().back().args == std::vector<std::string>{"float32[2, 5]", "float32[2, 3]",
                                                        "float32[3, 5]", "0.5", "2",
                                                        "float32[2, 5]"});
  CHECK(sizes_of(addmm(f32({2, 1}), f32({2, 3}), f32({3, 5}))) == Sizes{2, 5});

  check_rejects([] { addmm(f32({3}), f32({2, 3}), f32({3, 5})); }, "self", "broadcast");
  check_rejects([] { addmm(f32({1, 2, 5}), f32({2, 3}), f32({3, 5})); }, "self", "broadcast");
  check_rejects([] { addmm(of({5}, DType::F64), f32({2, 3}), f32({3, 5})); }, "self", "float64");
  check_rejects([] { addmm(f32({5}), f32({2, 3}), f32({4, 5})); }, "mat2", "columns");
  check_rejects(
      [] {
        addmm(of({5}, DType::I32), of({2, 3}, DType::I32), of({3, 5}, DType::I32), 0.5);
      },
      "beta", "integer");
  check_rejects(
      [] {
        addmm(of({5}, DType::I32), of({2, 3}, DType::I32), of({3, 5}, DType::I32), 1, 1.5);
      },
      "alpha", "integer");
}

TEST_CASE("addmm without a backend kernel runs its composite: mm, then scale and add") {
  Tracing kmm("mm.out", &run_matmul);
  Tracing kadd("add.out", &run_add);
  Tensor self = tensor<float>({1, 2}, {2});
  Tensor a = tensor<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = tensor<float>({1, 0, 0, 1}, {2, 2});
  trace().clear();
  Tensor r = addmm(self, a, b, 1, 2);  // self + 2 * a
  CHECK(traced_ops() == std::vector<std::string>{"mm.out", "add.out"});
  CHECK(r.tolist<float>() == std::vector<float>{3, 6, 7, 10});

  SECTION("beta 0 ignores self; other betas and alphas go through mul") {
    Tracing kmul("mul.out");  // clears the trace
    addmm(self, a, b, 0, 1);
    CHECK(traced_ops() == std::vector<std::string>{"mm.out"});
    trace().clear();
    addmm(self, a, b, 0, 3);
    CHECK(traced_ops() == std::vector<std::string>{"mm.out", "mul.out"});
    trace().clear();
    addmm(self, a, b, 2, 1);
    CHECK(traced_ops() == std::vector<std::string>{"mm.out", "mul.out", "add.out"});
    CHECK(trace()[1].args[0] == "float32[2, 2]");  // beta scales self expanded to [n, p]
  }
}

TEST_CASE("matmul reaches mm or bmm with the shapes of PyTorch's rules") {
  Tracing kmm("mm.out");
  Tracing kbmm("bmm.out");
  struct Case {
    Sizes a, b, result;
    std::string op, arg0, arg1;
  };
  std::vector<Case> cases = {
      {{3}, {3}, {}, "mm.out", "float32[1, 3]", "float32[3, 1]"},
      {{2, 3}, {3}, {2}, "mm.out", "float32[2, 3]", "float32[3, 1]"},
      {{3}, {3, 4}, {4}, "mm.out", "float32[1, 3]", "float32[3, 4]"},
      {{2, 3}, {3, 4}, {2, 4}, "mm.out", "float32[2, 3]", "float32[3, 4]"},
      // Batch dims of the left operand fold into the rows of one mm.
      {{5, 2, 3}, {3, 4}, {5, 2, 4}, "mm.out", "float32[10, 3]", "float32[3, 4]"},
      {{5, 2, 3}, {3}, {5, 2}, "mm.out", "float32[10, 3]", "float32[3, 1]"},
      {{2, 3}, {5, 3, 4}, {5, 2, 4}, "bmm.out", "float32[5, 2, 3]", "float32[5, 3, 4]"},
      {{3}, {5, 3, 4}, {5, 4}, "bmm.out", "float32[5, 1, 3]", "float32[5, 3, 4]"},
      {{5, 2, 3}, {5, 3, 4}, {5, 2, 4}, "bmm.out", "float32[5, 2, 3]", "float32[5, 3, 4]"},
      // Batch dims broadcast.
      {{2, 1, 4, 3}, {6, 3, 5}, {2, 6, 4, 5}, "bmm.out", "float32[12, 4, 3]", "float32[12, 3, 5]"},
      {{5, 2, 3}, {7, 1, 3, 4}, {7, 5, 2, 4}, "bmm.out", "float32[35, 2, 3]", "float32[35, 3, 4]"},
  };
  for (const Case& c : cases) {
    INFO(shape_str(c.a) << " @ " << shape_str(c.b));
    trace().clear();
    Tensor r = f32(c.a).matmul(f32(c.b));
    CHECK(sizes_of(r) == c.result);
    REQUIRE(trace().size() == 1);
    CHECK(trace()[0].op == c.op);
    CHECK(trace()[0].args[0] == c.arg0);
    CHECK(trace()[0].args[1] == c.arg1);
  }
}

TEST_CASE("matmul computes the right values when batch dims broadcast") {
  Tracing kmm("mm.out", &run_matmul);
  Tracing kbmm("bmm.out", &run_matmul);
  Tensor a = arange(12, DType::F32).reshape({2, 1, 2, 3});  // two batches of [2, 3]
  Tensor b = arange(6, DType::F32).reshape({3, 2});
  Tensor bb = b.unsqueeze(0).expand({2, 3, 2});  // the same matrix twice, stride 0
  Tensor r = matmul(a, bb);
  CHECK(sizes_of(r) == Sizes{2, 2, 2, 2});
  // [[0,1,2],[3,4,5]] @ [[0,1],[2,3],[4,5]] = [[10,13],[28,40]]; next batch adds 3s.
  CHECK(r.tolist<float>() ==
        std::vector<float>{10, 13, 28, 40, 10, 13, 28, 40, 46, 67, 64, 94, 46, 67, 64, 94});
  CHECK(matmul(a, b).tolist<float>() ==
        std::vector<float>{10, 13, 28, 40, 46, 67, 64, 94});  // folded into one mm
  CHECK(matmul(tensor<float>({1, 2, 3}), tensor<float>({4, 5, 6})).item<float>() == 32);
}

TEST_CASE("matmul rejects 0-d operands, mismatched sizes and mixed dtypes") {
  Tracing kmm("mm.out");
  check_rejects([] { matmul(scalar_tensor(1.0f), f32({3})); }, "self", "0-d");
  check_rejects([] { matmul(f32({3}), scalar_tensor(1.0f)); }, "other", "0-d");
  check_rejects([] { matmul(f32({3}), f32({4})); }, "other", "cannot be multiplied");
  check_rejects([] { matmul(f32({5, 2, 3}), f32({4, 2})); }, "other", "cannot be multiplied");
  check_rejects([] { matmul(f32({2, 3}), of({3}, DType::F64)); }, "other", "float64");
  check_rejects([] { matmul(f32({2, 2, 3}), f32({3, 3, 4})); }, "other", "do not broadcast");
  Error e = error_of([] { matmul(f32({3}), f32({4})); });
  CHECK(e.context().op == "matmul");
  CHECK(trace().empty());
}

TEST_CASE("linear: addmm for a 2-D input with bias, else matmul and add") {
  Tracing kaddmm("addmm.out");
  Tracing kmm("mm.out");
  Tracing kadd("add.out");
  Tensor w = f32({4, 3});  // out_features 4, in_features 3
  CHECK(sizes_of(linear(f32({2, 3}), w, f32({4}))) == Sizes{2, 4});
  CHECK(traced_ops() == std::vector<std::string>{"addmm.out"});
  CHECK(trace()[0].args[0] == "float32[2, 4]");  // bias expanded to [n, p]
  CHECK(trace()[0].args[2] == "float32[3, 4]");  // weight transposed

  trace().clear();
  CHECK(sizes_of(linear(f32({5, 2, 3}), w, f32({4}))) == Sizes{5, 2, 4});
  CHECK(traced_ops() == std::vector<std::string>{"mm.out", "add.out"});
  CHECK(trace()[0].args[0] == "float32[10, 3]");

  trace().clear();
  CHECK(sizes_of(linear(f32({2, 3}), w)) == Sizes{2, 4});
  CHECK(traced_ops() == std::vector<std::string>{"mm.out"});
  CHECK(sizes_of(linear(f32({3}), f32({3}))) == Sizes{});

  check_rejects([&] { linear(f32({2, 5}), w); }, "weight", "features");
  check_rejects([&] { linear(f32({2, 3}), f32({2, 4, 3})); }, "weight", "2-D");
  check_rejects([&] { linear(f32({2, 3}), w, f32({3})); }, "bias", "broadcast");
  check_rejects([&] { linear(f32({2, 3}), of({4, 3}, DType::F64)); }, "weight", "float64");
}

// ------------------------------------------------------------------- nn ops

TEST_CASE("softmax and log_softmax: same shape, wrapped dim, floating only") {
  Tracing ks("softmax.int_out");
  Tracing kl("log_softmax.int_out");
  Tensor x = f32({2, 3});
  CHECK(sizes_of(x.softmax(-1)) == Sizes{2, 3});
  CHECK(trace().back().args ==
        std::vector<std::string>{"float32[2, 3]", "1", "None", "float32[2, 3]"});
  CHECK(sizes_of(x.log_softmax(0)) == Sizes{2, 3});
  CHECK(trace().back().op == "log_softmax.int_out");

  Tensor r = softmax(of({2, 3}, DType::I64), 1, DType::F32);
  CHECK(r.dtype() == DType::F32);
  CHECK(trace().back().args[0] == "float32[2, 3]");
  CHECK(log_softmax(x, 1, DType::F64).dtype() == DType::F64);
  CHECK(sizes_of(scalar_tensor(1.0f).softmax(-1)) == Sizes{});
  CHECK(trace().back().args[1] == "0");

  check_rejects([] { of({2, 3}, DType::I32).softmax(1); }, "self", "floating");
  check_rejects([&] { softmax(x, 1, DType::I64); }, "dtype", "floating");
  check_rejects([&] { x.log_softmax(2); }, "dim", "out of range");
}

TEST_CASE("layer_norm: normalized_shape names input's trailing dims") {
  Tracing k("layer_norm.out");
  Tensor x = f32({2, 5, 4});
  CHECK(sizes_of(layer_norm(x, {5, 4}, f32({5, 4}), f32({5, 4}))) == Sizes{2, 5, 4});
  CHECK(trace().back().args[1] == "[5, 4]");
  CHECK(trace().back().args[2] == "float32[5, 4]");
  layer_norm(x, {4});
  CHECK(trace().back().args[2] == "None");
  // Affine tensors arrive in the input's dtype.
  layer_norm(x, {4}, of({4}, DType::F64));
  CHECK(trace().back().args[2] == "float32[4]");

  check_rejects([&] { layer_norm(x, {5}); }, "normalized_shape", "last 1 dims");
  check_rejects([&] { layer_norm(x, {3, 2, 5, 4}); }, "normalized_shape", "last 4 dims");
  check_rejects([&] { layer_norm(x, {}); }, "normalized_shape", "at least one");
  check_rejects([&] { layer_norm(x, {4}, f32({5})); }, "weight", "[4]");
  check_rejects([&] { layer_norm(x, {5, 4}, {}, f32({4})); }, "bias", "[5, 4]");
  check_rejects([&] { layer_norm(x, {4}, of({4}, DType::I32)); }, "weight", "floating");
  check_rejects([] { layer_norm(of({2, 4}, DType::I64), {4}); }, "input", "floating");
}

TEST_CASE("conv2d: output sizes with stride, padding, dilation and groups") {
  Tracing k("conv2d.out");
  Tensor x = f32({1, 3, 8, 8});
  Tensor w = f32({4, 3, 3, 3});
  CHECK(sizes_of(conv2d(x, w)) == Sizes{1, 4, 6, 6});
  CHECK(trace().back().args[3] == "[1, 1]");
  CHECK(sizes_of(conv2d(x, w, f32({4}), {2}, {1})) == Sizes{1, 4, 4, 4});
  CHECK(trace().back().args[3] == "[2, 2]");  // one value stands for both dims
  CHECK(trace().back().args[4] == "[1, 1]");
  CHECK(sizes_of(conv2d(x, w, {}, {1, 2}, {0, 1}, {2, 1})) == Sizes{1, 4, 4, 4});
  CHECK(sizes_of(conv2d(f32({2, 4, 5, 5}), f32({6, 2, 3, 3}), {}, {1}, {0}, {1}, 2)) ==
        Sizes{2, 6, 3, 3});
  CHECK(trace().back().args[6] == "2");
  // A kernel exactly as large as the padded input gives one position.
  CHECK(sizes_of(conv2d(f32({1, 3, 1, 1}), w, {}, {1}, {1})) == Sizes{1, 4, 1, 1});

  SECTION("an unbatched [C, H, W] input gets a batch dim around the call") {
    CHECK(sizes_of(conv2d(f32({3, 8, 8}), w)) == Sizes{4, 6, 6});
    CHECK(trace().back().args[0] == "float32[1, 3, 8, 8]");
    Tensor out = f32({4, 6, 6});
    CHECK(conv2d_out(out, f32({3, 8, 8}), w).is_same(out));
  }
}

TEST_CASE("conv2d rejects bad shapes, channels, groups and window arguments") {
  Tracing k("conv2d.out");
  Tensor x = f32({1, 4, 5, 5});
  check_rejects([] { conv2d(f32({4, 5}), f32({2, 4, 3, 3})); }, "input", "4-D");
  check_rejects([&] { conv2d(x, f32({2, 4, 3})); }, "weight", "4-D");
  check_rejects([&] { conv2d(x, f32({2, 3, 3, 3})); }, "weight", "input channels");
  check_rejects(
      [&] {
        conv2d(x, f32({6, 2, 3, 3}), {}, {1}, {0}, {1}, 3);
      },
      "weight", "input channels");
  check_rejects([&] { conv2d(x, f32({5, 2, 3, 3}), {}, {1}, {0}, {1}, 2); }, "weight", "groups=2");
  check_rejects([&] { conv2d(x, f32({2, 4, 3, 3}), {}, {1}, {0}, {1}, 0); }, "groups", "positive");
  check_rejects([&] { conv2d(x, f32({2, 4, 3, 3}), {}, {0}); }, "stride", "positive");
  check_rejects([&] { conv2d(x, f32({2, 4, 3, 3}), {}, {1}, {-1}); }, "padding", "non-negative");
  check_rejects(
      [&] {
        conv2d(x, f32({2, 4, 3, 3}), {}, {1}, {0}, {1, 0});
      },
      "dilation", "positive");
  check_rejects([&] { conv2d(x, f32({2, 4, 3, 3}), {}, {1, 1, 1}); }, "stride", "two values");
  check_rejects([&] { conv2d(x, f32({2, 4, 6, 3})); }, "weight", "larger than the padded input");
  check_rejects(
      [&] {
        conv2d(x, f32({2, 4, 3, 3}), {}, {1}, {0}, {3});
      },
      "weight", "larger than the padded input");
  check_rejects([&] { conv2d(x, f32({2, 4, 3, 3}), f32({3})); }, "bias", "[2]");
  check_rejects([&] { conv2d(x, of({2, 4, 3, 3}, DType::F64)); }, "weight", "float64");
  check_rejects(
      [] {
        conv2d(of({1, 4, 5, 5}, DType::I32), of({2, 4, 3, 3}, DType::I32));
      },
      "input", "int32");
  CHECK(trace().empty());
}

TEST_CASE("max_pool2d: output sizes, the stride default and ceil_mode") {
  Tracing k("max_pool2d.out");
  CHECK(sizes_of(max_pool2d(f32({1, 2, 5, 5}), {2})) == Sizes{1, 2, 2, 2});
  CHECK(trace().back().args[1] == "[2, 2]");
  CHECK(trace().back().args[2] == "[2, 2]");  // empty stride: kernel_size
  CHECK(sizes_of(max_pool2d(f32({1, 2, 5, 5}), {2}, {}, {0}, {1}, true)) == Sizes{1, 2, 3, 3});
  // ceil_mode adds a window only when it starts inside the input or left padding.
  CHECK(sizes_of(max_pool2d(f32({1, 1, 6, 6}), {3}, {2})) == Sizes{1, 1, 2, 2});
  CHECK(sizes_of(max_pool2d(f32({1, 1, 6, 6}), {3}, {2}, {0}, {1}, true)) == Sizes{1, 1, 3, 3});
  CHECK(sizes_of(max_pool2d(f32({1, 1, 5, 5}), {2}, {2}, {1}, {1}, true)) == Sizes{1, 1, 3, 3});
  CHECK(sizes_of(max_pool2d(f32({1, 1, 7, 8}), {3, 2}, {1}, {1, 0}, {2, 1})) == Sizes{1, 1, 5, 7});
  CHECK(sizes_of(max_pool2d(f32({3, 4, 4}), {2})) == Sizes{3, 2, 2});  // unbatched

  check_rejects([] { max_pool2d(f32({1, 1, 4, 4}), {2}, {}, {2}); }, "padding", "half");
  check_rejects([] { max_pool2d(f32({1, 1, 4, 4}), {0}); }, "kernel_size", "positive");
  check_rejects([] { max_pool2d(f32({1, 1, 4, 4}), {2}, {0}); }, "stride", "positive");
  check_rejects([] { max_pool2d(f32({1, 1, 4, 4}), {2}, {}, {0}, {0}); }, "dilation", "positive");
  check_rejects([] { max_pool2d(f32({1, 1, 1, 4}), {2}); }, "self", "no output in height");
  check_rejects([] { max_pool2d(f32({4, 4}), {2}); }, "self", "4-D");
  check_rejects([] { max_pool2d(of({1, 1, 4, 4}, DType::I64), {2}); }, "self", "int64");
}

TEST_CASE("embedding: indices.shape + [dim], computed in weight's dtype") {
  Tracing k("embedding.out");
  Tensor w = of({10, 4}, DType::F16);
  Tensor r = embedding(w, of({2, 3}, DType::I64));
  CHECK(sizes_of(r) == Sizes{2, 3, 4});
  CHECK(r.dtype() == DType::F16);
  CHECK(trace().back().dtype == DType::F16);
  CHECK(trace().back().args[1] == "int64[2, 3]");
  embedding(w, of({5}, DType::I32), 3);
  CHECK(trace().back().args[1] == "int32[5]");  // indices stay as they are
  CHECK(sizes_of(embedding(w, scalar_tensor(1, DType::I64))) == Sizes{4});
  embedding(w, of({1}, DType::I64), -10);

  check_rejects([&] { embedding(w, of({2}, DType::F32)); }, "indices", "int32 or int64");
  check_rejects([&] { embedding(w, of({2}, DType::I16)); }, "indices", "int16");
  check_rejects([] { embedding(f32({10}), of({2}, DType::I64)); }, "weight", "2-D");
  check_rejects([&] { embedding(w, of({2}, DType::I64), 10); }, "padding_idx", "10 rows");
  check_rejects([&] { embedding(w, of({2}, DType::I64), -11); }, "padding_idx", "-11");
}

TEST_CASE("mse_loss: a composite of sub, mul and the reduction") {
  Tracing ksub("sub.out");
  Tracing kmul("mul.out");
  Tracing kmean("mean.out");
  Tracing ksum("sum.IntList_out");
  Tensor a = f32({2, 3});
  trace().clear();
  CHECK(sizes_of(mse_loss(a, a)) == Sizes{});
  CHECK(traced_ops() == std::vector<std::string>{"sub.out", "mul.out", "mean.out"});
  trace().clear();
  CHECK(sizes_of(mse_loss(a, f32({3}), 2)) == Sizes{});
  CHECK(traced_ops() == std::vector<std::string>{"sub.out", "mul.out", "sum.IntList_out"});
  trace().clear();
  CHECK(sizes_of(mse_loss(a, a, 0)) == Sizes{2, 3});
  CHECK(traced_ops() == std::vector<std::string>{"sub.out", "mul.out"});

  trace().clear();
  check_rejects([&] { mse_loss(a, a, 3); }, "reduction", "got 3");
  check_rejects([&] { mse_loss(a, a, -1); }, "reduction", "got -1");
  check_rejects([] { mse_loss(of({2}, DType::I64), of({2}, DType::I64)); }, "self", "floating");
  check_rejects([&] { mse_loss(a, f32({4})); }, "target", "do not broadcast");
  CHECK(trace().empty());
}

// ---------------------------------------------------------------------- cat

TEST_CASE("cat: sizes add up along dim, dtypes promote, legacy empties are skipped") {
  Tracing k("cat.out");
  CHECK(sizes_of(cat({f32({2, 3}), f32({4, 3})})) == Sizes{6, 3});
  CHECK(trace().back().args[1] == "0");
  CHECK(sizes_of(cat({f32({2, 3}), f32({2, 5}), f32({2, 1})}, -1)) == Sizes{2, 9});
  CHECK(trace().back().args[1] == "1");

  Tensor r = cat({of({2}, DType::I32), f32({3})});
  CHECK(r.dtype() == DType::F32);
  CHECK(trace().back().args[0] == "{float32[2], float32[3]}");
  CHECK(cat({of({2}, DType::U8), of({1}, DType::I8)}).dtype() == DType::I16);

  // 1-D empty tensors are skipped whatever the other shapes (and still promote).
  Tensor s = cat({f32({0}), of({2, 3}, DType::F16), of({0}, DType::F16), of({1, 3}, DType::F16)});
  CHECK(sizes_of(s) == Sizes{3, 3});
  CHECK(s.dtype() == DType::F32);
  CHECK(trace().back().args[0] == "{float32[2, 3], float32[1, 3]}");
  CHECK(sizes_of(cat({f32({0}), f32({0})})) == Sizes{0});
  CHECK(trace().back().args[0] == "{float32[0]}");

  std::vector<Tensor> list{f32({1, 2}), f32({3, 2})};
  Tensor out = f32({4, 2});
  CHECK(cat_out(out, list).is_same(out));
  CHECK(trace().back().args.back() == "float32[4, 2]");
}

TEST_CASE("cat rejects an empty list, mismatched shapes, 0-d tensors and bad dims") {
  Tracing k("cat.out");
  check_rejects([] { cat(std::vector<Tensor>{}); }, "tensors", "at least one");
  check_rejects([] { cat({f32({2, 3}), f32({2, 4})}); }, "tensors", "tensors[1] of shape [2, 4]");
  check_rejects([] { cat({f32({2, 3}), f32({2, 3, 1})}, 1); }, "tensors", "number of dims");
  check_rejects([] { cat({f32({2}), scalar_tensor(1.0f)}); }, "tensors", "tensors[1] is 0-d");
  check_rejects([] { cat({f32({2, 3}), f32({2, 3})}, 2); }, "dim", "out of range");
  CHECK(trace().empty());
}
