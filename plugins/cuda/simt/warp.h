// Warp shuffles and votes. Each is a warp-wide rendezvous: the lane deposits
// its value, the block scheduler waits until every live lane of the warp has
// arrived at the same kind of operation (a mismatch is a launch failure), then
// every lane reads the deposits it needs. Warp size is the launch's warpSize.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "language.h"

namespace simt::detail {
enum class WarpOp : int { sync = 1, shuffle, vote };
// Deposits bits for this lane, waits for the warp, returns every lane's
// deposit (index = lane; entries past the warp's last thread are 0). Valid
// until this lane's next warp operation.
const uint64_t* warp_exchange(WarpOp op, unsigned long long mask, uint64_t bits);
// Lanes in this thread's warp (fewer than warpSize for a partial last warp).
unsigned warp_lanes();

inline unsigned lane_id() {
  unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return linear % unsigned(warpSize);
}

template <typename T>
uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "shuffle of a type over 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// The value of lane src, or v when src is outside the warp's live lanes.
template <typename T>
T shuffle_from(unsigned long long mask, T v, long src, long lo, long hi) {
  const uint64_t* all = warp_exchange(WarpOp::shuffle, mask, to_bits(v));
  if (src < lo || src >= hi || src >= long(warp_lanes())) return v;
  return from_bits<T>(all[src]);
}
}  // namespace simt::detail

template <typename T>
T __shfl_sync(unsigned long long mask, T v, int src, int width = warpSize) {
  long lane = simt::detail::lane_id(), base = lane - lane % width;
  long s = base + ((src % width) + width) % width;
  return simt::detail::shuffle_from(mask, v, s, base, base + width);
}
template <typename T>
T __shfl_xor_sync(unsigned long long mask, T v, int lane_mask, int width = warpSize) {
  long lane = simt::detail::lane_id(), base = lane - lane % width;
  return simt::detail::shuffle_from(mask, v, lane ^ lane_mask, 0, base + width);
}
template <typename T>
T __shfl_down_sync(unsigned long long mask, T v, unsigned delta, int width = warpSize) {
  long lane = simt::detail::lane_id(), base = lane - lane % width;
  return simt::detail::shuffle_from(mask, v, lane + long(delta), base, base + width);
}
template <typename T>
T __shfl_up_sync(unsigned long long mask, T v, unsigned delta, int width = warpSize) {
  long lane = simt::detail::lane_id(), base = lane - lane % width;
  return simt::detail::shuffle_from(mask, v, lane - long(delta), base, base + width);
}

// Bit i set when lane i's predicate is non-zero (lanes relative to the warp).
unsigned long long __ballot_sync(unsigned long long mask, int predicate);
int __any_sync(unsigned long long mask, int predicate);
int __all_sync(unsigned long long mask, int predicate);
