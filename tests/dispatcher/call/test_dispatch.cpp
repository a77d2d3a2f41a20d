// The dispatcher: layers and redispatch, kernel lookup by dtype, composites,
// both fallback policies, and the checks every call gets.
#include <catch2/catch.hpp>

#include <thread>

#include "plexus/dispatcher.h"
#include "plexus/ops.h"
#include "plexus/profiler.h"
#include "support/test_backend.h"

using namespace plexus;
using namespace plexus::testing;

namespace {
std::vector<std::string>& trace() {
  static std::vector<std::string> t;
  return t;
}

Tensor tracing_layer(void* ctx, const Operator& op, DispatchKeys keys, std::span<const Value> args,
                     Layer) {
  if (op.name() == "add.Tensor") trace().push_back(static_cast<const char*>(ctx));
  return Dispatcher::get().redispatch(op, keys, args);
}

void tracing_add(void* ctx, KernelCall& call) {
  trace().push_back("kernel");
  reference_add_kernel(ctx, call);
}

// Restores a layer to "no kernel" at scope exit.
struct ScopedLayer {
  Layer layer;
  ScopedLayer(Layer l, const char* name) : layer(l) {
    Dispatcher::get().set_layer_kernel(l, tracing_layer, const_cast<char*>(name));
    Dispatcher::get().enable_layer(l, true);
  }
  ~ScopedLayer() {
    Dispatcher::get().enable_layer(layer, false);
    Dispatcher::get().set_layer_kernel(layer, nullptr, nullptr);
  }
};

Tensor host_f32(std::initializer_list<float> v, IntArrayRef sizes) {
  return tensor<float>(v, sizes);
}
}  // namespace

TEST_CASE("layers run above the backend, highest first, and redispatch below themselves") {
  ScopedKernel k("add.out", kCPU, tracing_add, {DType::F32});
  ScopedLayer autograd(Layer::Autograd, "autograd");
  ScopedLayer profiler(Layer::Profiler, "profiler");
  trace().clear();
  Tensor c = add(ones({2}), ones({2}));
  CHECK(trace() == std::vector<std::string>{"profiler", "autograd", "kernel"});
  CHECK(c.tolist<float>() == std::vector<float>{2, 2});

  SECTION("a thread-local exclude skips a layer on this thread only") {
    trace().clear();
    {
      LayerGuard g(Layer::Autograd, LayerGuard::Mode::Exclude);
      add(ones({2}), ones({2}));
    }
    CHECK(trace() == std::vector<std::string>{"profiler", "kernel"});
    trace().clear();
    std::thread([] { add(ones({2}), ones({2})); }).join();
    CHECK(trace() == std::vector<std::string>{"profiler", "autograd", "kernel"});
  }
}

TEST_CASE("a thread-local include turns a layer on for this thread") {
  ScopedKernel k("add.out", kCPU, tracing_add, {DType::F32});
  Dispatcher::get().set_layer_kernel(Layer::Autograd, tracing_layer, const_cast<char*>("autograd"));
  trace().clear();
  add(ones({1}), ones({1}));
  CHECK(trace() == std::vector<std::string>{"kernel"});
  trace().clear();
  {
    LayerGuard g(Layer::Autograd, LayerGuard::Mode::Include);
    add(ones({1}), ones({1}));
  }
  CHECK(trace() == std::vector<std::string>{"autograd", "kernel"});
  Dispatcher::get().set_layer_kernel(Layer::Autograd, nullptr, nullptr);
}

TEST_CASE("the profiler layer counts calls per op and device, on and off at run time") {
  ScopedKernel k("add.out", kCPU, reference_add_kernel, {DType::F32});
  profiler::reset();
  profiler::enable(true);
  for (int i = 0; i < 3; ++i) add(ones({4}), ones({4}));
  profiler::enable(false);
  add(ones({4}), ones({4}));
  auto recs = profiler::records();
  auto it = std::find_if(recs.begin(), recs.end(),
                         [](const profiler::Record& r) { return r.op == "add.Tensor"; });
  REQUIRE(it != recs.end());
  CHECK(it->calls == 3);
  CHECK(it->device == "cpu");
  CHECK(it->total_ns > 0);
  CHECK(profiler::report().find("add.Tensor") != std::string::npos);
}

TEST_CASE("kernels are chosen by the compute dtype") {
  ScopedKernel k("add.out", kCPU, recording_kernel, {DType::F64});
  recorded() = {};
  add(ones({2}, DType::F64), ones({2}, DType::F32));
  CHECK(recorded().calls == 1);
  CHECK(recorded().dtype == DType::F64);
  ScopedFallback policy(FallbackPolicy::Error);
  REQUIRE_THROWS_WITH(add(ones({2}), ones({2})),
                      Catch::Contains("only for float64, not float32"));
}

TEST_CASE("a backend without a kernel: error policy names op, dtype and backend") {
  DeviceType dev = testdev();
  ScopedFallback policy(FallbackPolicy::Error);
  Tensor a = ones({3}).to(Device(dev));
  try {
    add(a, a);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("testdev has no kernel for 'add.out'"));
    CHECK_THAT(m, Catch::Contains("policy 'cpu' would run it on the cpu"));
    CHECK(e.context().device == "testdev:0");
  }
}

TEST_CASE("a backend without a kernel: cpu policy runs the cpu kernel and copies back") {
  DeviceType dev = testdev();
  ScopedKernel k("add.out", kCPU, reference_add_kernel, {DType::F32});
  ScopedFallback policy(FallbackPolicy::Cpu);
  Tensor a = host_f32({1, 2, 3, 4, 5, 6}, {2, 3}).to(Device(dev));
  Tensor b = host_f32({10, 20, 30}, {3}).to(Device(dev));
  uint64_t before = 0;
  for (auto& f : Dispatcher::get().fallback_counts())
    if (f.op == "add.out" && f.backend == "testdev") before = f.count;

  Tensor c = add(a, b, 2);
  CHECK(c.device() == Device(dev));
  CHECK(c.tolist<float>() == std::vector<float>{21, 42, 63, 24, 45, 66});

  SECTION("into a strided view of a device tensor, leaving its other elements alone") {
    Tensor big = zeros({2, 6}).to(Device(dev));
    Tensor view = big.slice(1, 0, 6, 2);  // every other column
    add_out(view, a, b);
    CHECK(big.tolist<float>() == std::vector<float>{11, 0, 22, 0, 33, 0, 14, 0, 25, 0, 36, 0});
  }
  uint64_t after = 0;
  for (auto& f : Dispatcher::get().fallback_counts())
    if (f.op == "add.out" && f.backend == "testdev") after = f.count;
  CHECK(after > before);
}

TEST_CASE("the cpu has no fallback: a missing cpu kernel is an error under either policy") {
  ScopedFallback policy(FallbackPolicy::Cpu);
  Dispatcher::get().unregister_kernel("add.out", kCPU);
  REQUIRE_THROWS_WITH(add(ones({1}), ones({1})), Catch::Contains("cpu has no kernel for 'add.out'"));
}

TEST_CASE("composites run when a backend lacks a kernel, and not when it has one") {
  // to.dtype is a composite over empty + copy_.
  Tensor a = tensor<int32_t>({1, 2, 3});
  Tensor f = a.to(DType::F64);
  CHECK(f.dtype() == DType::F64);
  CHECK(f.tolist<double>() == std::vector<double>{1, 2, 3});
  CHECK(a.to(DType::I32).is_same(a));  // no change: the same tensor back

  recorded() = {};
  ScopedKernel k("to.dtype", kCPU, [](void*, KernelCall& call) {
    recorded().calls++;
    call.result = call.args[0].to_tensor();
  }, DTypeSet::all());
  Tensor g = a.to(DType::F64);
  CHECK(recorded().calls == 1);
  CHECK(g.is_same(a));
}

TEST_CASE("unknown ops are named, with similar ones suggested") {
  REQUIRE_THROWS_WITH(Dispatcher::get().op("add.Tensr"),
                      Catch::Contains("unknown op 'add.Tensr'") && Catch::Contains("add.Tensor"));
  REQUIRE_THROWS_WITH(Dispatcher::get().op("no_such_op"), Catch::Contains("unknown op 'no_such_op'"));
}

TEST_CASE("arguments on different devices are an error; 0-d cpu tensors are scalars") {
  DeviceType dev = testdev();
  ScopedKernel k("add.out", dev, reference_add_kernel, {DType::F32});
  Tensor a = ones({2}).to(Device(dev));
  REQUIRE_THROWS_WITH(add(a, ones({2})),
                      Catch::Contains("argument 'other'") && Catch::Contains("testdev:0") &&
                          Catch::Contains("found one on cpu"));
  Tensor c = add(a, scalar_tensor(5.0));
  CHECK(c.device() == Device(dev));
  CHECK(c.tolist<float>() == std::vector<float>{6, 6});
  Tensor d = add(a, 1.5);
  CHECK(d.dtype() == DType::F32);
  CHECK(d.tolist<float>() == std::vector<float>{2.5, 2.5});
}

TEST_CASE("out= and in-place writes are checked before anything is written") {
  ScopedKernel k("add.out", kCPU, reference_add_kernel, {DType::F32, DType::F64});
  Tensor a = host_f32({1, 2, 3}, {3});
  Tensor b = host_f32({1, 1, 1}, {3});

  SECTION("wrong out shape") {
    Tensor out = zeros({4});
    REQUIRE_THROWS_WITH(add_out(out, a, b),
                        Catch::Contains("argument 'out'") && Catch::Contains("shape [3]") &&
                            Catch::Contains("[4]"));
    CHECK(out.tolist<float>() == std::vector<float>{0, 0, 0, 0});
  }
  SECTION("out dtype the result can't be cast to") {
    Tensor out = zeros({3}, DType::I32);
    REQUIRE_THROWS_WITH(add_out(out, a, b), Catch::Contains("can't be cast"));
  }
  SECTION("out of a wider dtype gets the converted result") {
    Tensor out = zeros({3}, DType::F64);
    add_out(out, a, b);
    CHECK(out.tolist<double>() == std::vector<double>{2, 3, 4});
  }
  SECTION("in-place result shape must be self's") {
    Tensor s = host_f32({1, 2, 3}, {1, 3});
    REQUIRE_THROWS_WITH(s.add_(zeros({2, 3})), Catch::Contains("argument 'self'") &&
                                                    Catch::Contains("[2, 3]"));
    CHECK(s.tolist<float>() == std::vector<float>{1, 2, 3});
  }
  SECTION("an out that is exactly an input is fine for elementwise ops") {
    add_out(a, a, b);
    CHECK(a.tolist<float>() == std::vector<float>{2, 3, 4});
  }
  SECTION("an out partially overlapping an input is refused") {
    Tensor buf = host_f32({1, 2, 3, 4}, {4});
    Tensor out = buf.slice(0, 1, 4);
    REQUIRE_THROWS_WITH(add_out(out, buf.slice(0, 0, 3), b),
                        Catch::Contains("partially overlaps"));
    CHECK(buf.tolist<float>() == std::vector<float>{1, 2, 3, 4});
  }
  SECTION("an out whose elements share memory is refused") {
    Tensor out = zeros({1}).expand({3});
    REQUIRE_THROWS_WITH(add_out(out, a, b), Catch::Contains("share memory"));
  }
}

TEST_CASE("registration is safe while other threads call ops") {
  ScopedKernel k("add.out", kCPU, reference_add_kernel, {DType::F32});
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::thread caller([&] {
    Tensor a = ones({8});
    while (!stop) {
      if (add(a, a).tolist<float>()[7] == 2.0f) ok++;
    }
  });
  for (int i = 0; i < 200; ++i)
    Dispatcher::get().register_kernel("add.out", kCPU, reference_add_kernel, nullptr,
                                      {DType::F32}, "test", true);
  while (ok.load() < 10) std::this_thread::yield();
  stop = true;
  caller.join();
  CHECK(ok.load() >= 10);
}

TEST_CASE("registering twice without replace is refused; kernels hold on out variants") {
  ScopedKernel k("add.out", kCPU, reference_add_kernel, {DType::F32});
  REQUIRE_THROWS_WITH(Dispatcher::get().register_kernel("add.out", kCPU, reference_add_kernel,
                                                        nullptr, {DType::F32}, "again"),
                      Catch::Contains("already has a kernel"));
  REQUIRE_THROWS_WITH(Dispatcher::get().register_kernel("add.Tensor", kCPU, reference_add_kernel,
                                                        nullptr, {DType::F32}, "x"),
                      Catch::Contains("registered on 'add.out'"));
}

TEST_CASE("a 0-d device tensor copies back to a 0-d cpu tensor") {
  Device dev(testdev(), 0);
  Tensor d = full({}, 7.5).to(dev);
  Tensor h = empty({});
  h.copy_(d);
  CHECK(h.item<double>() == 7.5);
  CHECK(d.item<double>() == 7.5);
}
