// Runs one block: every GPU thread is a fiber on a reused, guard-paged stack;
// the scheduler resumes runnable fibers in order and releases barriers and
// warp operations once every live thread (lane) has reached them. When that
// can never happen (some exited, or wait elsewhere) the block fails instead of
// hanging.
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "internal.h"
#include "warp.h"

namespace simt::detail {
namespace {

namespace ctx = boost::context;

constexpr size_t kStackBytes = 64 * 1024;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxWarp = 64;

// kMaxThreads stacks, each below a guard page, mapped once per OS thread.
class StackPool {
 public:
  StackPool() {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    slot_ = kStackBytes + page_;
    void* p = mmap(nullptr, slot_ * kMaxThreads, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<char*>(p);
    for (unsigned i = 0; i < kMaxThreads; ++i) mprotect(base_ + i * slot_, page_, PROT_NONE);
  }
  ~StackPool() { munmap(base_, slot_ * kMaxThreads); }
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  ctx::stack_context stack(unsigned i) const {
    ctx::stack_context sc;
    sc.size = kStackBytes;
    sc.sp = base_ + (i + 1) * slot_;  // stacks grow down from the slot's end
    return sc;
  }

 private:
  char* base_ = nullptr;
  size_t page_ = 0, slot_ = 0;
};

// Hands a fiber one stack of the pool; the pool keeps it afterwards.
struct PoolStack {
  ctx::stack_context sc;
  ctx::stack_context allocate() { return sc; }
  void deallocate(ctx::stack_context&) noexcept {}
};

enum class State : uint8_t { runnable, at_barrier, at_warp, done };

struct Lane {
  ctx::fiber fiber;      // the lane, while suspended
  ctx::fiber scheduler;  // the scheduler, while the lane runs
  uint3 index{};
  State state = State::runnable;
  WarpOp op{};
  unsigned long long mask = 0;
  unsigned phase = 0;  // which half of the exchange buffer the next warp op uses
};

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp";
    case WarpOp::shuffle:
      return "a shuffle";
    case WarpOp::vote:
      return "a vote";
  }
  return "a warp operation";
}

class BlockRunner {
 public:
  std::string run(const LaunchConfig& config, uint3 block_index, int warp_size,
                  const KernelBody& body);
  const uint64_t* exchange(WarpOp op, unsigned long long mask, uint64_t bits);
  void barrier() { suspend(State::at_barrier); }
  unsigned warp_lanes() const {
    unsigned base = unsigned(current_ - lanes_.data()) / warp_ * warp_;
    return std::min(warp_, count_ - base);
  }

 private:
  void start(unsigned i, const KernelBody& body);
  void resume(unsigned i);
  void suspend(State s);
  bool release_warps();
  bool release_barrier();
  std::string where() const;

  StackPool stacks_;
  std::vector<Lane> lanes_ = std::vector<Lane>(kMaxThreads);
  std::vector<uint64_t> exchange_[2] = {std::vector<uint64_t>(kMaxThreads + kMaxWarp),
                                        std::vector<uint64_t>(kMaxThreads + kMaxWarp)};
  std::vector<unsigned char> dynamic_shared_;
  Lane* current_ = nullptr;
  unsigned count_ = 0, warp_ = 32;
  uint3 block_{};
  const char* kernel_ = "";
  std::string failure_;
};

thread_local std::unique_ptr<BlockRunner> t_runner;

BlockRunner& runner() {
  if (!t_runner) t_runner = std::make_unique<BlockRunner>();
  return *t_runner;
}

void BlockRunner::start(unsigned i, const KernelBody& body) {
  Lane& lane = lanes_[i];
  lane.state = State::runnable;
  lane.phase = 0;
  lane.fiber = ctx::fiber(std::allocator_arg, PoolStack{stacks_.stack(i)},
                          [this, &lane, &body](ctx::fiber&& scheduler) {
                            lane.scheduler = std::move(scheduler);
                            try {
                              body();
                            } catch (const ctx::detail::forced_unwind&) {
                              throw;  // a failed block unwinding its fibers
                            } catch (const std::exception& e) {
                              failure_ = std::string("threw ") + e.what();
                            } catch (...) {
                              failure_ = "threw an exception";
                            }
                            lane.state = State::done;
                            return std::move(lane.scheduler);
                          });
}

void BlockRunner::resume(unsigned i) {
  Lane& lane = lanes_[i];
  current_ = &lane;
  threadIdx = lane.index;
  lane.fiber = std::move(lane.fiber).resume();
  current_ = nullptr;
}

void BlockRunner::suspend(State s) {
  Lane& lane = *current_;
  lane.state = s;
  lane.scheduler = std::move(lane.scheduler).resume();
}

const uint64_t* BlockRunner::exchange(WarpOp op, unsigned long long mask, uint64_t bits) {
  Lane& lane = *current_;
  unsigned i = unsigned(&lane - lanes_.data());
  unsigned phase = lane.phase;
  exchange_[phase][i] = bits;
  lane.op = op;
  lane.mask = mask;
  suspend(State::at_warp);
  lane.phase ^= 1;
  return exchange_[phase].data() + i / warp_ * warp_;
}

std::string BlockRunner::where() const {
  return std::string("kernel ") + kernel_ + ", block (" + std::to_string(block_.x) + "," +
         std::to_string(block_.y) + "," + std::to_string(block_.z) + "): ";
}

// Releases every warp whose live lanes all wait at the same warp operation;
// records a failure for a warp that can never complete its operation.
bool BlockRunner::release_warps() {
  bool released = false;
  for (unsigned base = 0; base < count_ && failure_.empty(); base += warp_) {
    unsigned end = std::min(count_, base + warp_), at_warp = 0, done = 0;
    unsigned long long live = 0;
    for (unsigned i = base; i < end; ++i) {
      at_warp += lanes_[i].state == State::at_warp;
      done += lanes_[i].state == State::done;
      if (lanes_[i].state != State::done) live |= 1ull << (i - base);
    }
    if (at_warp == 0) continue;
    const Lane& first = lanes_[base + unsigned(__builtin_ctzll(live))];
    std::string warp = "warp " + std::to_string(base / warp_) + ": ";
    if (at_warp + done < end - base) {
      failure_ = where() + warp + op_name(first.op) + " reached by " + std::to_string(at_warp) +
                 " lanes while the others wait at __syncthreads";
      return false;
    }
    if (done > 0) {
      failure_ = where() + warp + op_name(first.op) + " reached by " + std::to_string(at_warp) +
                 " lanes; " + std::to_string(done) + " had exited";
      return false;
    }
    for (unsigned i = base; i < end; ++i) {
      const Lane& l = lanes_[i];
      if (l.op != first.op) {
        failure_ = where() + warp + "lanes diverged between " + op_name(first.op) + " and " +
                   op_name(l.op);
        return false;
      }
      if ((l.mask & live) != live) {
        failure_ = where() + warp + op_name(l.op) + " with a mask that leaves out live lanes";
        return false;
      }
    }
    for (unsigned i = base; i < end; ++i) lanes_[i].state = State::runnable;
    released = true;
  }
  return released;
}

// Releases __syncthreads once every thread waits there; false when all are done.
bool BlockRunner::release_barrier() {
  unsigned waiting = 0;
  for (unsigned i = 0; i < count_; ++i) waiting += lanes_[i].state == State::at_barrier;
  if (waiting == 0) return false;
  if (waiting < count_) {
    failure_ = where() + "__syncthreads reached by " + std::to_string(waiting) + " of " +
               std::to_string(count_) + " threads; the others exited (divergent barrier)";
    return false;
  }
  for (unsigned i = 0; i < count_; ++i) lanes_[i].state = State::runnable;
  return true;
}

std::string BlockRunner::run(const LaunchConfig& config, uint3 block_index, int warp_size,
                             const KernelBody& body) {
  dim3 b = config.block;
  count_ = b.x * b.y * b.z;
  warp_ = unsigned(warp_size);
  block_ = block_index;
  kernel_ = config.kernel_name;
  failure_.clear();
  // Uninitialized shared memory reads as NaN / -1, so kernels relying on it fail.
  if (dynamic_shared_.size() < config.shared_bytes + 16)
    dynamic_shared_.resize(config.shared_bytes + 16);
  std::memset(dynamic_shared_.data(), 0xff, config.shared_bytes);
  simt::detail::t_dynamic_shared = dynamic_shared_.data();
  blockIdx = block_index;
  blockDim = b;
  gridDim = config.grid;
  warpSize = warp_size;
  for (unsigned i = 0; i < count_; ++i) {
    lanes_[i].index = uint3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
    start(i, body);
  }
  for (;;) {
    for (unsigned i = 0; i < count_ && failure_.empty(); ++i)
      if (lanes_[i].state == State::runnable) resume(i);
    if (!failure_.empty()) break;
    if (release_warps()) continue;
    if (!failure_.empty() || !release_barrier()) break;
  }
  for (unsigned i = 0; i < count_; ++i) lanes_[i].fiber = ctx::fiber();  // unwinds stuck lanes
  if (!failure_.empty() && failure_.rfind("kernel ", 0) != 0) failure_ = where() + failure_;
  return failure_;
}

}  // namespace

std::string run_block(const LaunchConfig& config, uint3 block_index, int warp_size,
                      const KernelBody& body) {
  return runner().run(config, block_index, warp_size, body);
}

const uint64_t* warp_exchange(WarpOp op, unsigned long long mask, uint64_t bits) {
  return runner().exchange(op, mask, bits);
}

unsigned warp_lanes() {
  return runner().warp_lanes();
}

}  // namespace simt::detail

void __syncthreads() {
  simt::detail::runner().barrier();
}

void __syncwarp(unsigned long long mask) {
  simt::detail::warp_exchange(simt::detail::WarpOp::sync, mask, 0);
}

void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

unsigned long long __ballot_sync(unsigned long long mask, int predicate) {
  using namespace simt::detail;
  const uint64_t* all = warp_exchange(WarpOp::vote, mask, predicate != 0);
  unsigned long long bits = 0;
  for (unsigned i = 0, n = warp_lanes(); i < n; ++i) bits |= (all[i] & 1ull) << i;
  return bits;
}

int __any_sync(unsigned long long mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}

int __all_sync(unsigned long long mask, int predicate) {
  unsigned n = simt::detail::warp_lanes();
  unsigned long long all = n == 64 ? ~0ull : (1ull << n) - 1;
  return __ballot_sync(mask, predicate) == all;
}
