// The meta functions of the elementwise catalog (arithmetic, math functions,
// comparisons, where, lerp/addcmul/addcdiv): result dtype and shape, what the
// kernel is handed, every rejected input, and the composites' decompositions.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "plexus/dispatcher.h"
#include "plexus/ops.h"
#include "support/error_of.h"
#include "support/test_backend.h"

using namespace plexus;
using namespace plexus::testing;
using Catch::Contains;
using Sizes = std::vector<int64_t>;

namespace {

constexpr DTypeSet kAll = DTypeSet::all();


// Resets recorded() and registers the recording kernel on `op` for cpu.
struct Recording {
  ScopedKernel kernel;
  explicit Recording(const char* op) : kernel(op, kCPU, recording_kernel, kAll) { recorded() = {}; }
};

// Which kernels ran, in order, with the Scalar arguments each received.
struct LoggedCall {
  std::string op;
  std::vector<double> scalars;
};
std::vector<LoggedCall>& kernel_log() {
  static std::vector<LoggedCall> log;
  return log;
}
void logging_kernel(void*, KernelCall& call) {
  LoggedCall c{call.op.name(), {}};
  for (const Value& v : call.args)
    if (v.tag() == Value::Tag::Scalar) c.scalars.push_back(v.to_scalar().to_double());
  kernel_log().push_back(std::move(c));
}
std::vector<std::string> logged_ops() {
  std::vector<std::string> ops;
  for (const LoggedCall& c : kernel_log()) ops.push_back(c.op);
  return ops;
}

// Logging kernels on several ops of one backend for a scope; clears the log.
struct LoggingKernels {
  std::vector<std::unique_ptr<ScopedKernel>> kernels;
  LoggingKernels(std::initializer_list<const char*> ops, DeviceType backend) {
    for (const char* op : ops)
      kernels.push_back(std::make_unique<ScopedKernel>(op, backend, logging_kernel, kAll));
    kernel_log().clear();
  }
};

Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}
Tensor on_testdev(IntArrayRef sizes, DType dtype = DType::F32) {
  return empty(sizes, {dtype, Device(testdev())});
}

}  // namespace

TEST_CASE("binary ops promote their inputs and hand the kernel the compute dtype") {
  Recording rec("add.out");

  SECTION("int and float tensors compute in the float type") {
    Tensor r = add(ones({2, 3}, DType::I32), ones({2, 3}, DType::F32));
    CHECK(r.dtype() == DType::F32);
    CHECK(recorded().calls == 1);
    CHECK(recorded().dtype == DType::F32);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F32, DType::F32, DType::F32});
  }
  SECTION("integer types widen: uint8 with int8 gives int16") {
    CHECK(add(ones({2}, DType::U8), ones({2}, DType::I8)).dtype() == DType::I16);
    CHECK(recorded().dtype == DType::I16);
  }
  SECTION("bool with bool stays bool; bool with int gives the int") {
    CHECK(add(ones({2}, DType::Bool), ones({2}, DType::Bool)).dtype() == DType::Bool);
    CHECK(add(ones({2}, DType::Bool), ones({2}, DType::I16)).dtype() == DType::I16);
  }
  SECTION("a 0-d tensor only wins when it is of a higher category") {
    CHECK(add(ones({3}, DType::F32), scalar_tensor(1, DType::F64)).dtype() == DType::F32);
    CHECK(add(ones({3}, DType::I32), scalar_tensor(2.5, DType::F64)).dtype() == DType::F64);
    CHECK(add(scalar_tensor(1, DType::F64), scalar_tensor(1, DType::F16)).dtype() == DType::F64);
  }
  SECTION("C++ numbers count as Python scalars") {
    CHECK(add(ones({3}, DType::I32), 2).dtype() == DType::I32);
    CHECK(add(ones({3}, DType::U8), 300).dtype() == DType::U8);
    CHECK(add(ones({3}, DType::I32), 2.5).dtype() == DType::F32);
    CHECK(add(ones({3}, DType::F16), 2.5).dtype() == DType::F16);
    CHECK(add(ones({3}, DType::Bool), 1).dtype() == DType::I64);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::I64, DType::I64, DType::I64});
  }
}

TEST_CASE("alpha must fit the compute dtype (PyTorch's alpha_check)") {
  Recording rec("add.out");
  CHECK(add(ones({2}, DType::Bool), ones({2}, DType::Bool), true).dtype() == DType::Bool);
  CHECK(add(ones({2}, DType::Bool), ones({2}, DType::Bool), 2).dtype() == DType::Bool);
  CHECK(add(ones({2}, DType::I32), ones({2}), 0.5).dtype() == DType::F32);
  CHECK(recorded().calls == 3);
  Error float_alpha = error_of([] { add(ones({2}, DType::I32), ones({2}, DType::U8), 0.5); });
  CHECK(float_alpha.context().argument == "alpha");
  CHECK_THAT(float_alpha.message(), Contains("int32") && Contains("0.5"));
  Error bool_alpha = error_of([] { add(ones({2}), ones({2}), true); });
  CHECK(bool_alpha.context().argument == "alpha");
  CHECK_THAT(bool_alpha.message(), Contains("float32"));
}

TEST_CASE("inputs reach the kernel expanded to the broadcast output shape") {
  Recording rec("mul.out");
  Tensor r = mul(ones({2, 1, 3}), ones({4, 1}, DType::F64));
  CHECK(sizes_of(r) == Sizes{2, 4, 3});
  CHECK(r.dtype() == DType::F64);
  CHECK(recorded().tensor_sizes == std::vector<Sizes>{{2, 4, 3}, {2, 4, 3}, {2, 4, 3}});

  SECTION("a scalar broadcasts to any shape") {
    Tensor s = mul(ones({5, 2}), 3);
    CHECK(sizes_of(s) == Sizes{5, 2});
    CHECK(recorded().tensor_sizes[1] == Sizes{5, 2});
  }
  SECTION("shapes that do not broadcast name the argument") {
    Error e = error_of([] { mul(ones({2, 3}), ones({4})); });
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK(e.context().op == "mul.Tensor");
    CHECK(e.context().argument == "other");
  }
}

TEST_CASE("sub is add's rules minus bool") {
  Recording rec("sub.out");
  CHECK(sub(ones({2}, DType::I64), ones({2}, DType::F16)).dtype() == DType::F16);
  CHECK(recorded().dtype == DType::F16);

  SECTION("two bool tensors: suggests logical_xor") {
    Error e = error_of([] { sub(ones({2}, DType::Bool), ones({2}, DType::Bool)); });
    CHECK(e.context().argument == "self");
    CHECK_THAT(e.message(), Contains("logical_xor"));
  }
  SECTION("one bool operand, even a scalar: suggests logical_not") {
    Error e = error_of([] { sub(ones({2}, DType::I32), ones({2}, DType::Bool)); });
    CHECK(e.context().argument == "other");
    CHECK_THAT(e.message(), Contains("logical_not"));
    CHECK(error_of([] { sub(ones({2}), true); }).context().argument == "other");
  }
  SECTION("alpha must fit the compute dtype") {
    Error e = error_of([] { sub(ones({2}, DType::I32), ones({2}, DType::I32), 0.5); });
    CHECK(e.context().argument == "alpha");
    CHECK_THAT(e.message(), Contains("int32"));
    CHECK(recorded().calls == 1);  // only the first call above reached the kernel
  }
  SECTION("the operator and the method are sub") {
    Tensor a = ones({2, 2});
    Tensor r = a - ones({2});
    CHECK(sizes_of(r) == Sizes{2, 2});
    CHECK((a - 1).dtype() == DType::F32);
    a.sub_(ones({2}));
    CHECK(recorded().calls == 4);
  }
}

TEST_CASE("div divides truly unless a rounding mode is given") {
  SECTION("true division of integers is float32") {
    Recording rec("div.out");
    Tensor r = div(ones({3}, DType::I64), ones({3}, DType::I32));
    CHECK(r.dtype() == DType::F32);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F32, DType::F32, DType::F32});
    CHECK((ones({3}, DType::I16) / 2).dtype() == DType::F32);
    CHECK(div(ones({3}, DType::F64), 2).dtype() == DType::F64);
  }
  SECTION("trunc and floor keep the promoted dtype") {
    Recording rec("div.out_mode");
    CHECK(div(ones({3}, DType::I32), ones({3}, DType::I16), "trunc").dtype() == DType::I32);
    CHECK(recorded().dtype == DType::I32);
    CHECK(div(ones({3}, DType::I32), 2.0, "floor").dtype() == DType::F32);
  }
  SECTION("div.Tensor_mode with None divides truly") {
    Recording rec("div.out_mode");
    const Operator& op = Dispatcher::get().op("div.Tensor_mode");
    Tensor a = ones({2}, DType::I32);
    Value args[] = {Value::tensor(a), Value::tensor(a), Value()};
    CHECK(Dispatcher::get().call(op, args).dtype() == DType::F32);
  }
  SECTION("any other rounding mode is refused, naming the valid ones") {
    Recording rec("div.out_mode");
    Error e = error_of([] { div(ones({2}), ones({2}), "round"); });
    CHECK(e.context().argument == "rounding_mode");
    CHECK_THAT(e.message(), Contains("'trunc'") && Contains("'floor'") && Contains("'round'"));
    CHECK(recorded().calls == 0);
  }
  SECTION("floor division is not defined for bool") {
    Recording rec("div.out_mode");
    Error e = error_of([] { div(ones({2}, DType::Bool), ones({2}, DType::Bool), "floor"); });
    CHECK_THAT(e.message(), Contains("bool"));
  }
}

TEST_CASE("pow ranks a Scalar exponent as a Python scalar") {
  SECTION("Tensor exponent") {
    Recording rec("pow.Tensor_Tensor_out");
    CHECK(pow(ones({2}, DType::I32), ones({2}, DType::F16)).dtype() == DType::F16);
    CHECK(ones({2}, DType::I64).pow(ones({2}, DType::I8)).dtype() == DType::I64);
    Error e = error_of([] { pow(ones({2}, DType::Bool), ones({2}, DType::Bool)); });
    CHECK(e.context().argument == "self");
    CHECK_THAT(e.message(), Contains("bool"));
  }
  SECTION("Scalar exponent") {
    Recording rec("pow.Tensor_Scalar_out");
    CHECK(pow(ones({2}, DType::I32), 2).dtype() == DType::I32);
    CHECK(pow(ones({2}, DType::I32), 0.5).dtype() == DType::F32);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F32, DType::F32});
    CHECK(ones({2}, DType::F16).pow(3.0).dtype() == DType::F16);
    CHECK(pow(ones({2}, DType::Bool), 2).dtype() == DType::I64);
    CHECK(pow(ones({2}), -1).dtype() == DType::F32);
  }
  SECTION("integers to negative integer powers are refused") {
    Recording rec("pow.Tensor_Scalar_out");
    Error e = error_of([] { pow(ones({2}, DType::I32), -2); });
    CHECK(e.context().argument == "exponent");
    CHECK(recorded().calls == 0);
  }
}

TEST_CASE("maximum and minimum promote like add") {
  Recording rec("maximum.out");
  CHECK(maximum(ones({2, 1}, DType::U8), ones({3}, DType::I8)).dtype() == DType::I16);
  CHECK(recorded().tensor_sizes[0] == Sizes{2, 3});
  Recording rec2("minimum.out");
  CHECK(ones({2}, DType::Bool).minimum(ones({2}, DType::Bool)).dtype() == DType::Bool);
}

TEST_CASE("activations refuse integer and bool tensors, as in PyTorch") {
  for (const char* name : {"silu", "gelu"}) {
    DYNAMIC_SECTION(name) {
      std::string out_op = std::string(name) + ".out";
      Recording rec(out_op.c_str());
      const Operator& op = Dispatcher::get().op(name);
      std::string none = "none";
      for (DType t : {DType::I64, DType::U8, DType::Bool}) {
        Tensor x = ones({2}, t);  // a Value refers to its tensor: keep it alive
        Value args[] = {Value::tensor(x), Value::string(none)};
        Error e = error_of([&] {
          Dispatcher::get().call(op, std::span<const Value>(args, op.schema().arguments.size()));
        });
        CHECK(e.context().argument == "self");
        CHECK_THAT(e.message(),
                   Contains("takes floating tensors") && Contains(std::string(dtype_name(t))));
      }
    }
  }
}

TEST_CASE("floating functions compute integers as float32") {
  for (const char* name : {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid"}) {
    DYNAMIC_SECTION(name) {
      std::string out_op = std::string(name) + ".out";
      Recording rec(out_op.c_str());
      const Operator& op = Dispatcher::get().op(name);
      Tensor i = ones({2, 3}, DType::I64);
      Tensor h = ones({2, 3}, DType::F16);
      std::string none = "none";
      auto call = [&](const Tensor& t) {
        if (std::string(name) == "gelu") {
          Value args[] = {Value::tensor(t), Value::string(none)};
          return Dispatcher::get().call(op, args);
        }
        Value args[] = {Value::tensor(t)};
        return Dispatcher::get().call(op, args);
      };
      CHECK(call(i).dtype() == DType::F32);
      CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F32, DType::F32});
      CHECK(call(ones({2}, DType::Bool)).dtype() == DType::F32);
      CHECK(call(h).dtype() == DType::F16);
      CHECK(recorded().dtype == DType::F16);
      // In place, an integer tensor cannot hold the float result.
      std::string inplace_name = std::string(name) + "_";
      const Operator& inplace = Dispatcher::get().op(inplace_name);
      Value inplace_args[] = {Value::tensor(i), Value::string(none)};
      Error e = error_of([&] {
        Dispatcher::get().call(
            inplace, std::span<const Value>(inplace_args, inplace.schema().arguments.size()));
      });
      CHECK(e.context().argument == "self");
      CHECK_THAT(e.message(), Contains("can't be cast"));
    }
  }
  SECTION("the free functions and methods reach the same ops") {
    Recording rec("sqrt.out");
    CHECK(sqrt(ones({2}, DType::I8)).dtype() == DType::F32);
    CHECK(ones({2}, DType::F64).sqrt().dtype() == DType::F64);
    sqrt_(ones({2}));
    CHECK(recorded().calls == 3);
  }
}

TEST_CASE("neg, abs and relu keep the input dtype") {
  SECTION("neg") {
    Recording rec("neg.out");
    CHECK(neg(ones({2}, DType::U8)).dtype() == DType::U8);
    CHECK((-ones({2}, DType::I16)).dtype() == DType::I16);
    CHECK(ones({2}).neg().dtype() == DType::F32);
    CHECK(recorded().calls == 3);
    Error e = error_of([] { neg(ones({2}, DType::Bool)); });
    CHECK(e.context().op == "neg");
    CHECK(e.context().argument == "self");
    CHECK_THAT(e.message(), Contains("logical_not"));
    CHECK(error_of([] { neg_(ones({2}, DType::Bool)); }).context().op == "neg_");
  }
  SECTION("abs refuses bool") {
    Recording rec("abs.out");
    CHECK(ones({2}, DType::I8).abs().dtype() == DType::I8);
    CHECK_THAT(error_of([] { abs(ones({2}, DType::Bool)); }).message(), Contains("bool"));
  }
  SECTION("relu") {
    Recording rec("relu.out");
    CHECK(ones({2}, DType::I32).relu().dtype() == DType::I32);
    CHECK(relu(ones({2}, DType::BF16)).dtype() == DType::BF16);
  }
}

TEST_CASE("gelu takes approximate 'none' or 'tanh'") {
  Recording rec("gelu.out");
  CHECK(gelu(ones({2}), "tanh").dtype() == DType::F32);
  CHECK(gelu(ones({2})).dtype() == DType::F32);
  Error e = error_of([] { gelu(ones({2}), "fast"); });
  CHECK(e.context().argument == "approximate");
  CHECK_THAT(e.message(), Contains("'none'") && Contains("'tanh'") && Contains("'fast'"));
  CHECK(error_of([] { gelu_(ones({2}), "erf"); }).context().argument == "approximate");
  CHECK(recorded().calls == 2);
}

TEST_CASE("clamp promotes self with its bounds") {
  Recording rec("clamp.out");
  CHECK(clamp(ones({2}, DType::I32), 0, 5).dtype() == DType::I32);
  CHECK(recorded().dtype == DType::I32);
  CHECK(clamp(ones({2}, DType::I32), 0.5).dtype() == DType::F32);
  CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F32, DType::F32});
  CHECK(clamp(ones({2}, DType::I32), std::nullopt, 2.5).dtype() == DType::F32);
  CHECK(ones({2}, DType::F16).clamp(0, 1.5).dtype() == DType::F16);
  CHECK(clamp(ones({2}, DType::U8), 1, 300).dtype() == DType::U8);
  CHECK(recorded().calls == 5);

  SECTION("at least one bound") {
    Error e = error_of([] { clamp(ones({2}), std::nullopt, std::nullopt); });
    CHECK(e.context().op == "clamp");
    CHECK(e.context().argument == "min");
    CHECK_THAT(e.message(), Contains("max"));
  }
  SECTION("in place, an integer tensor cannot take float bounds") {
    CHECK(error_of([] { clamp_(ones({2}, DType::I64), 0.5); }).context().argument == "self");
  }
}

TEST_CASE("comparisons return bool and compare in the promoted dtype") {
  SECTION("Tensor") {
    Recording rec("lt.Tensor_out");
    Tensor r = lt(ones({2, 1}, DType::I32), ones({3}, DType::F16));
    CHECK(r.dtype() == DType::Bool);
    CHECK(sizes_of(r) == Sizes{2, 3});
    CHECK(recorded().dtype == DType::F16);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F16, DType::F16, DType::Bool});
  }
  SECTION("Scalar") {
    Recording rec("eq.Scalar_out");
    CHECK(eq(ones({2}, DType::I32), 2.5).dtype() == DType::Bool);
    CHECK(recorded().dtype == DType::F32);
    CHECK(eq(ones({2}, DType::I32), 2).dtype() == DType::Bool);
    CHECK(recorded().dtype == DType::I32);
  }
  SECTION("out: a bool result may be written into any dtype, but the shape must match") {
    Recording rec("ge.Tensor_out");
    Tensor out = empty({2}, DType::F32);
    ge_out(out, ones({2}), zeros({2}));
    CHECK(recorded().tensor_dtypes.back() == DType::Bool);  // the kernel writes a bool temporary
    Error e = error_of([] { ge_out(empty({3}, DType::Bool), ones({2}), zeros({2})); });
    CHECK(e.context().argument == "out");
    CHECK_THAT(e.message(), Contains("[2]") && Contains("[3]"));
  }
  SECTION("every comparison has its ops") {
    for (const char* name : {"eq", "ne", "lt", "le", "gt", "ge"})
      for (const char* overload : {".Tensor", ".Tensor_out", ".Scalar", ".Scalar_out"})
        CHECK(Dispatcher::get().find_op(std::string(name) + overload) != nullptr);
  }
}

TEST_CASE("where broadcasts condition, self and other; condition stays bool") {
  Recording rec("where.self_out");
  Tensor cond = ones({2, 1}, DType::Bool);
  Tensor r = where(cond, ones({1, 3}, DType::I32), scalar_tensor(1.5, DType::F64));
  CHECK(sizes_of(r) == Sizes{2, 3});
  CHECK(r.dtype() == DType::F64);
  CHECK(recorded().dtype == DType::F64);
  CHECK(recorded().tensor_sizes == std::vector<Sizes>{{2, 3}, {2, 3}, {2, 3}, {2, 3}});
  CHECK(recorded().tensor_dtypes ==
        std::vector<DType>{DType::Bool, DType::F64, DType::F64, DType::F64});
  CHECK(where(cond, ones({2, 3}, DType::I32), 2.5).dtype() == DType::F32);
  CHECK(where(ones({4, 1, 1}, DType::Bool), 1, 2).dtype() == DType::I64);
  CHECK(sizes_of(where(ones({4, 1, 1}, DType::Bool), ones({3}), 2)) == Sizes{4, 1, 3});

  SECTION("a condition that is not bool is refused") {
    Error e = error_of([] { where(ones({2}, DType::U8), ones({2}), ones({2})); });
    CHECK(e.context().op == "where.self");
    CHECK(e.context().argument == "condition");
    CHECK_THAT(e.message(), Contains("uint8"));
  }
  SECTION("a condition that does not broadcast is named") {
    Error e = error_of([] { where(ones({3}, DType::Bool), ones({2, 2}), ones({2})); });
    CHECK(e.context().argument == "condition");
  }
}

TEST_CASE("lerp, addcmul and addcdiv") {
  SECTION("lerp is floating and wants end in self's dtype") {
    Recording rec("lerp.Scalar_out");
    Tensor r = lerp(ones({2, 3}, DType::F16), ones({3}, DType::F16), 0.5);
    CHECK(r.dtype() == DType::F16);
    CHECK(recorded().tensor_sizes[1] == Sizes{2, 3});
    Error e = error_of([] { lerp(ones({2}), ones({2}, DType::F64), 0.5); });
    CHECK(e.context().argument == "end");
    CHECK_THAT(e.message(), Contains("float32") && Contains("float64"));
    CHECK_THAT(error_of([] { lerp(ones({2}, DType::I32), ones({2}, DType::I32), 1); }).message(),
               Contains("int32"));
    ones({2}).lerp_(ones({2}), 0.25);
    CHECK(recorded().calls == 2);
  }
  SECTION("addcmul promotes all three and checks value") {
    Recording rec("addcmul.out");
    Tensor r = addcmul(ones({3}, DType::I32), ones({2, 1}, DType::I32), ones({3}, DType::F32));
    CHECK(r.dtype() == DType::F32);
    CHECK(sizes_of(r) == Sizes{2, 3});
    CHECK(recorded().tensor_sizes == std::vector<Sizes>{{2, 3}, {2, 3}, {2, 3}, {2, 3}});
    Error e = error_of(
        [] { addcmul(ones({2}, DType::I32), ones({2}, DType::I32), ones({2}, DType::I32), 0.5); });
    CHECK(e.context().argument == "value");
    Error shape = error_of([] { ones({1, 3}).addcmul_(ones({2, 3}), ones({3})); });
    CHECK(shape.context().argument == "self");
  }
  SECTION("addcdiv refuses two integer tensors") {
    Recording rec("addcdiv.out");
    CHECK(addcdiv(ones({2}, DType::I32), ones({2}, DType::I32), ones({2})).dtype() == DType::F32);
    Error e = error_of([] { addcdiv(ones({2}), ones({2}, DType::I64), ones({2}, DType::Bool)); });
    CHECK(e.context().op == "addcdiv");
    CHECK(e.context().argument == "tensor2");
    CHECK_THAT(e.message(), Contains("int64") && Contains("bool"));
    CHECK(recorded().calls == 1);
  }
}

TEST_CASE("in-place ops must be able to write their result into self") {
  Recording rec("add.out");
  SECTION("the result shape must be self's shape") {
    Error e = error_of([] { ones({1, 3}).add_(ones({2, 3})); });
    CHECK(e.context().op == "add_.Tensor");
    CHECK(e.context().argument == "self");
    CHECK_THAT(e.message(), Contains("[2, 3]") && Contains("[1, 3]"));
  }
  SECTION("the result dtype must cast to self's dtype") {
    CHECK_THAT(error_of([] { ones({2}, DType::I32).add_(ones({2})); }).message(),
               Contains("float32") && Contains("int32"));
    Recording div_rec("div.out");
    Error e = error_of([] { ones({2}, DType::I64).div_(ones({2}, DType::I64)); });
    CHECK(e.context().op == "div_.Tensor");
    CHECK(e.context().argument == "self");
    CHECK(recorded().calls == 0);
  }
  SECTION("a wider result is computed in a temporary and cast back") {
    Tensor a = ones({2, 3});
    a.add_(ones({3}, DType::F64));
    CHECK(recorded().dtype == DType::F64);
    CHECK(recorded().tensor_dtypes == std::vector<DType>{DType::F64, DType::F64, DType::F64});
    CHECK(a.dtype() == DType::F32);
  }
}

TEST_CASE("out arguments are checked before the kernel runs") {
  Recording rec("add.out");
  SECTION("wrong shape") {
    Error e = error_of([] { add_out(empty({3}), ones({2, 3}), ones({2, 3})); });
    CHECK(e.context().op == "add.out");
    CHECK(e.context().argument == "out");
  }
  SECTION("a float result into an integer out") {
    Error e = error_of([] { add_out(empty({2}, DType::I32), ones({2}), ones({2})); });
    CHECK(e.context().argument == "out");
    CHECK_THAT(e.message(), Contains("can't be cast"));
  }
  SECTION("an out that partially overlaps an input") {
    Tensor buf = zeros({4});
    Error e = error_of([&] { add_out(buf.slice(0, 1, 4), buf.slice(0, 0, 3), ones({3})); });
    CHECK(e.context().argument == "self");
    CHECK_THAT(e.message(), Contains("partially overlaps"));
  }
  SECTION("an out that is exactly an input is fine for elementwise ops") {
    Tensor a = ones({3});
    add_out(a, a, ones({3}));
    CHECK(recorded().calls == 1);
  }
}

TEST_CASE("a missing kernel under the error policy names op, dtype and backend") {
  ScopedFallback policy(FallbackPolicy::Error);
  SECTION("no kernel at all") {
    Error e = error_of([] { maximum(on_testdev({2}), on_testdev({2})); });
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(e.context().op == "maximum.out");
    CHECK(e.context().backend == "testdev");
    CHECK_THAT(e.message(), Contains("'maximum.out'") && Contains("policy is 'error'"));
  }
  SECTION("a kernel for other dtypes") {
    ScopedKernel k("mul.out", testdev(), recording_kernel, {DType::F64});
    Error e = error_of([] { mul(on_testdev({2}), on_testdev({2})); });
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK_THAT(e.message(), Contains("'mul.out'") && Contains("float64") && Contains("float32"));
  }
}

TEST_CASE("composites run when a backend lacks the kernel") {
  ScopedFallback policy(FallbackPolicy::Error);  // nothing may sneak off to the cpu
  // Scalars converted on the device go through copy_; values do not matter here.
  ScopedKernel copy(
      "copy_", testdev(), [](void*, KernelCall&) {}, kAll);
  Tensor x = on_testdev({2, 3});

  SECTION("silu is self * sigmoid(self)") {
    LoggingKernels k({"sigmoid.out", "mul.out"}, testdev());
    Tensor r = silu(x);
    CHECK(r.device() == x.device());
    CHECK(logged_ops() == std::vector<std::string>{"sigmoid.out", "mul.out"});
  }
  SECTION("sigmoid is 1 / (1 + exp(-x)), and neg is x * -1") {
    LoggingKernels k({"mul.out", "exp.out", "add.out", "div.out"}, testdev());
    sigmoid(x);
    CHECK(logged_ops() == std::vector<std::string>{"mul.out", "exp.out", "add.out", "div.out"});
    CHECK(kernel_log()[2].scalars == std::vector<double>{1});  // alpha of + 1
  }
  SECTION("composites nest down to the op that is missing, then stop") {
    Error e = error_of([&] { silu(x); });
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(e.context().op == "mul.out");  // silu -> sigmoid -> neg -> mul
  }
  SECTION("rsqrt is 1 / sqrt(x)") {
    LoggingKernels k({"sqrt.out", "div.out"}, testdev());
    rsqrt_(x);
    CHECK(logged_ops() == std::vector<std::string>{"sqrt.out", "div.out"});
  }
  SECTION("abs is where(x < 0, -x, x) + 0 (so that abs(-0) is +0)") {
    LoggingKernels k({"lt.Scalar_out", "mul.out", "where.self_out", "add.out"}, testdev());
    abs(x);
    std::vector<std::string> ops = logged_ops();
    REQUIRE(ops.size() == 4);
    CHECK(ops[2] == "where.self_out");
    CHECK(ops.back() == "add.out");
    std::sort(ops.begin(), ops.end());
    CHECK(ops == std::vector<std::string>{"add.out", "lt.Scalar_out", "mul.out", "where.self_out"});
  }
  SECTION("sub is add with -alpha") {
    LoggingKernels k({"add.out"}, testdev());
    sub(x, x, 3);
    REQUIRE(logged_ops() == std::vector<std::string>{"add.out"});
    CHECK(kernel_log()[0].scalars == std::vector<double>{-3});
  }
  SECTION("relu is clamp(min=0), and clamp is maximum then minimum") {
    LoggingKernels k({"maximum.out", "minimum.out"}, testdev());
    relu(x);
    CHECK(logged_ops() == std::vector<std::string>{"maximum.out"});
    kernel_log().clear();
    clamp(x, -1, 1);
    CHECK(logged_ops() == std::vector<std::string>{"maximum.out", "minimum.out"});
    kernel_log().clear();
    clamp_(x, std::nullopt, 1);
    CHECK(logged_ops() == std::vector<std::string>{"minimum.out"});
  }
  SECTION("gelu 'tanh' decomposes through tanh") {
    LoggingKernels k({"mul.out", "add.out", "tanh.out"}, testdev());
    gelu(x, "tanh");
    std::vector<std::string> ops = logged_ops();
    CHECK(std::count(ops.begin(), ops.end(), "tanh.out") == 1);
    CHECK(ops.back() == "mul.out");
  }
  SECTION("gelu 'none' has no decomposition: error policy raises") {
    LoggingKernels k({"mul.out", "add.out", "tanh.out"}, testdev());
    Error e = error_of([&] { gelu(x); });
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(e.context().backend == "testdev");
    CHECK_THAT(e.message(), Contains("no kernel for 'gelu.out' for float32"));
    CHECK(kernel_log().empty());
  }
  SECTION("gelu 'none' under the cpu policy runs the cpu kernel") {
    ScopedFallback cpu(FallbackPolicy::Cpu);
    LoggingKernels k({"gelu.out"}, kCPU);
    Tensor r = gelu(x);
    CHECK(r.device() == x.device());
    CHECK(logged_ops() == std::vector<std::string>{"gelu.out"});
  }
  SECTION("lerp starts from the end nearer to weight") {
    LoggingKernels k({"sub.out", "add.out"}, testdev());
    lerp(x, x, 0.25);
    CHECK(logged_ops() == std::vector<std::string>{"sub.out", "add.out"});
    CHECK(kernel_log()[1].scalars == std::vector<double>{0.25});
    kernel_log().clear();
    x.lerp_(x, 0.75);
    CHECK(logged_ops() == std::vector<std::string>{"sub.out", "sub.out"});
    CHECK(kernel_log()[1].scalars == std::vector<double>{0.25});
  }
  SECTION("addcmul and addcdiv pass value as add's alpha") {
    LoggingKernels k({"mul.out", "div.out", "add.out"}, testdev());
    addcmul(x, x, x, 2);
    CHECK(logged_ops() == std::vector<std::string>{"mul.out", "add.out"});
    CHECK(kernel_log()[1].scalars == std::vector<double>{2});
    kernel_log().clear();
    x.addcdiv_(x, x, 0.5);
    CHECK(logged_ops() == std::vector<std::string>{"div.out", "add.out"});
    CHECK(kernel_log()[1].scalars == std::vector<double>{0.5});
  }
  SECTION("a backend kernel wins over the composite") {
    LoggingKernels k({"silu.out", "sigmoid.out", "mul.out"}, testdev());
    silu(x);
    CHECK(logged_ops() == std::vector<std::string>{"silu.out"});
  }
}
