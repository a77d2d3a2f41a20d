// The timer the training and optimizer benches share: the best time of one
// call, in microseconds, over `runs` runs of `n` calls after one warm-up call.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

inline double best_us(int n, int runs, const std::function<void()>& f) {
  f();
  double best = INFINITY;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  return best;
}
