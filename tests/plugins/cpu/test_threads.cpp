// Many application threads on one runtime: kernels, the caching allocator,
// the profiler, autograd and plugin registration at the same time. Each
// thread checks its own results; the sanitizer job runs these under TSan
// (.ci/sanitizers), where a data race fails them even when the values agree.
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "plexus/autograd.h"
#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/profiler.h"

namespace {

using namespace plexus;

// Runs body(thread index) on `n` threads at once and joins them.
void on_threads(int n, const std::function<void(int)>& body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      ready++;
      while (ready.load() < n) std::this_thread::yield();  // start together
      body(t);
    });
  }
  for (std::thread& th : threads) th.join();
}

TEST_CASE("kernels from 8 threads give each thread its own results", "[threads]") {
  std::atomic<int> wrong{0};
  on_threads(8, [&](int t) {
    const float v = static_cast<float>(t + 1);
    for (int i = 0; i < 50; ++i) {
      Tensor a = full({64, 33}, v);
      Tensor b = ones({33, 17});
      Tensor c = relu(matmul(a, b));               // 33 * v everywhere
      Tensor s = sum(c, std::vector<int64_t>{1});  // 17 * 33 * v per row
      Tensor m = add(mul(s, 2.0), s);              // 3 * 17 * 33 * v
      std::vector<float> out = m.tolist<float>();
      for (float x : out)
        if (x != 3.0f * 17 * 33 * v) wrong++;
    }
  });
  CHECK(wrong.load() == 0);
}

TEST_CASE("the profiler counts every call made from 4 threads", "[threads]") {
  profiler::reset();
  profiler::enable(true);
  on_threads(4, [](int) {
    Tensor a = ones({16});
    for (int i = 0; i < 100; ++i) a = add(a, a);
  });
  profiler::enable(false);
  uint64_t calls = 0;
  for (const profiler::Record& r : profiler::records())
    if (r.op == "add.Tensor" && r.device == "cpu") calls += r.calls;
  profiler::reset();
  CHECK(calls == 400);
}

TEST_CASE("backward on 4 threads, each through its own graph", "[threads]") {
  std::atomic<int> wrong{0};
  on_threads(4, [&](int t) {
    for (int i = 0; i < 20; ++i) {
      Tensor w = full({8, 8}, static_cast<double>(t + 1));
      w.requires_grad_(true);
      Tensor x = ones({4, 8});
      Tensor loss = sum(mul(matmul(x, w), matmul(x, w)));  // sum((x w)^2)
      loss.backward();
      // d/dw sum((x w)^2) = 2 x^T (x w): every entry 2 * 4 * 8 (t + 1).
      for (float g : w.grad().tolist<float>())
        if (g != 64.0f * static_cast<float>(t + 1)) wrong++;
      // Guards are per thread: this thread's no-grad must not leak into others.
      NoGradGuard off;
      if (add(w, w).requires_grad()) wrong++;
    }
  });
  CHECK(wrong.load() == 0);
}

TEST_CASE("a kernel registered and replaced while 4 threads call ops", "[threads]") {
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0}, calls{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      Tensor a = full({32}, 2.0);
      while (!stop) {
        if (mul(a, a).tolist<float>()[31] != 4.0f) wrong++;
        calls++;
      }
    });
  }
  // Another op's table changes under the callers: the cpu plugin's own neg
  // kernel is replaced by itself and restored, again and again.
  Dispatcher& d = Dispatcher::get();
  const KernelEntry* entry = d.op("neg.out").kernel(kCPU);
  REQUIRE(entry != nullptr);
  const KernelEntry saved = *entry;
  const std::string source(saved.source);
  for (int i = 0; i < 200; ++i)
    d.register_kernel("neg.out", kCPU, saved.fn, saved.ctx, saved.dtypes,
                      i % 2 ? source : "threads test", true);
  while (calls.load() < 100) std::this_thread::yield();
  stop = true;
  for (std::thread& th : callers) th.join();
  CHECK(wrong.load() == 0);
  CHECK(neg(full({2}, 1.0)).tolist<float>() == std::vector<float>{-1, -1});
  CHECK(d.op("neg.out").kernel(kCPU)->source == source);
}

}  // namespace
