// CUDA's atomic functions, with exactly CUDA's overloads so that a kernel
// compiling here compiles under nvcc. Blocks run in parallel on OS threads,
// so these are real (relaxed, like CUDA's) atomics.
#pragma once

#include <atomic>

namespace simt::detail {
template <typename T>
std::atomic_ref<T> atomic(T* p) {
  return std::atomic_ref<T>(*p);
}
template <typename T, typename F>
T atomic_update(T* p, F f) {  // CAS loop applying f to the old value
  auto a = atomic(p);
  T old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, f(old), std::memory_order_relaxed)) {
  }
  return old;
}
}  // namespace simt::detail

#define SIMT_ATOMIC_ADD(T)                                                  \
  inline T atomicAdd(T* p, T v) {                                           \
    return simt::detail::atomic(p).fetch_add(v, std::memory_order_relaxed); \
  }                                                                         \
  inline T atomicSub(T* p, T v) {                                           \
    return simt::detail::atomic(p).fetch_sub(v, std::memory_order_relaxed); \
  }
SIMT_ATOMIC_ADD(int)
SIMT_ATOMIC_ADD(unsigned)
SIMT_ATOMIC_ADD(unsigned long long)
SIMT_ATOMIC_ADD(float)
SIMT_ATOMIC_ADD(double)
#undef SIMT_ATOMIC_ADD

#define SIMT_ATOMIC_MINMAX_EXCH(T)                                                                 \
  inline T atomicMax(T* p, T v) {                                                                  \
    return simt::detail::atomic_update(p, [v](T o) { return o < v ? v : o; });                     \
  }                                                                                                \
  inline T atomicMin(T* p, T v) {                                                                  \
    return simt::detail::atomic_update(p, [v](T o) { return v < o ? v : o; });                     \
  }                                                                                                \
  inline T atomicExch(T* p, T v) {                                                                 \
    return simt::detail::atomic(p).exchange(v, std::memory_order_relaxed);                         \
  }                                                                                                \
  inline T atomicCAS(T* p, T expected, T desired) {                                                \
    simt::detail::atomic(p).compare_exchange_strong(expected, desired, std::memory_order_relaxed); \
    return expected;                                                                               \
  }
SIMT_ATOMIC_MINMAX_EXCH(int)
SIMT_ATOMIC_MINMAX_EXCH(unsigned)
SIMT_ATOMIC_MINMAX_EXCH(unsigned long long)
SIMT_ATOMIC_MINMAX_EXCH(long long)
#undef SIMT_ATOMIC_MINMAX_EXCH

inline float atomicExch(float* p, float v) {
  return simt::detail::atomic(p).exchange(v, std::memory_order_relaxed);
}
