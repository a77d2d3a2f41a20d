// Streams on a device whose streams really run apart (simt's worker threads,
// vulkan's command batches, CUDA): work ordered with Stream::wait, threads
// with streams of their own, and record_stream keeping a freed block from
// being overwritten while another stream still reads it. Values are small
// integers, so every result is exact; only the loaded plugin is needed (the
// expected values are computed here on the host).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "plexus/allocator.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/stream.h"

namespace plexus::testing {

// n floats 0, 1, ..., 999, 0, 1, ... on `d`, copied on the current stream.
inline Tensor counting(int64_t n, Device d) {
  Tensor h = empty({n});
  float* p = h.data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = float(i % 1000);
  return h.to(d);
}

// Whether t (read back on the current stream) is f(i % 1000) everywhere;
// the first mismatch goes into the test's log.
template <typename F>
bool holds(const Tensor& t, F f) {
  Tensor h = t.to(Device()).contiguous();
  const float* p = h.data<float>();
  for (int64_t i = 0; i < h.numel(); ++i)
    if (p[i] != f(float(i % 1000))) {
      UNSCOPED_INFO("element " << i << " is " << p[i] << ", expected " << f(float(i % 1000)));
      return false;
    }
  return true;
}

inline void check_real_streams(Device d) {
  const int64_t n = int64_t(1) << 20;
  SECTION("work on one stream waits for another's through Stream::wait") {
    Stream s1 = Stream::create(d), s2 = Stream::create(d);
    Tensor x;
    {
      StreamGuard g(s1);
      x = counting(n, d);
      for (int i = 0; i < 30; ++i) x = add(x, 1.0);
    }
    s2.wait(s1);
    StreamGuard g(s2);
    Tensor y = mul(x, 2.0);
    x.record_stream(s2);
    CHECK(holds(y, [](float v) { return (v + 30) * 2; }));
  }
  SECTION("threads, each on a stream of its own") {
    constexpr int kThreads = 4;
    std::vector<int> ok(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          Stream s = Stream::create(d);
          StreamGuard g(s);
          Tensor x = counting(n / 4, d);
          for (int i = 0; i <= t; ++i) x = add(mul(x, 1.0), 1.0);
          Tensor h = x.to(Device());
          const float* p = h.data<float>();
          ok[size_t(t)] = 1;
          for (int64_t i = 0; i < h.numel(); ++i)
            if (p[i] != float(i % 1000) + float(t + 1)) ok[size_t(t)] = 0;
        } catch (const std::exception& e) {
          errors[size_t(t)] = e.what();
        }
      });
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      INFO("thread " << t << ": " << errors[size_t(t)]);
      CHECK(ok[size_t(t)] == 1);
    }
  }
  SECTION("a block another stream reads is not reused before that stream is done") {
    allocator_for(d).empty_cache();  // no block of this size from earlier sections
    Stream s1 = Stream::create(d), s2 = Stream::create(d);
    StreamGuard g1(s1);
    Tensor src = counting(n, d);
    void* block = src.storage()->data();
    s2.wait(s1);
    Tensor out;
    {
      StreamGuard g2(s2);
      Tensor busy = counting(n, d);
      for (int i = 0; i < 40; ++i) busy = add(busy, 1.0);
      out = add(busy, src);  // reads src late, on s2
      src.record_stream(s2);
    }
    src = Tensor();  // freed on s1 while s2 may still read it
    Tensor reused = empty({n}, {DType::F32, d});
    CHECK(reused.storage()->data() == block);  // after waiting for s2's reads
    reused.fill_(-7.0);
    StreamGuard g2(s2);
    CHECK(holds(out, [](float v) { return 2 * v + 40; }));
  }
}

}  // namespace plexus::testing
