// A launch: its configuration is checked when it is queued (errors go to the
// caller's last error, as on CUDA); when the stream reaches it, its blocks
// are claimed one at a time by the stream's worker and by a shared pool of
// OS threads, each running whole blocks.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <vector>

#include "internal.h"

namespace simt::detail {
namespace {

// PLEXUS_SIMT_WARP_SIZE (32 or 64) in the environment, else the build's default.
int initial_warp_size() {
  if (const char* env = std::getenv("PLEXUS_SIMT_WARP_SIZE")) {
    int lanes = std::atoi(env);
    if (lanes == 32 || lanes == 64) return lanes;
  }
#ifdef PLEXUS_SIMT_WARP_SIZE
  return PLEXUS_SIMT_WARP_SIZE;
#else
  return 32;
#endif
}

std::atomic<int> g_warp_size{initial_warp_size()};

// One grid being run: blocks are claimed by index; a failure skips the rest.
struct Grid {
  LaunchConfig config;
  int warp_size;
  KernelBody body;
  uint64_t total;
  std::atomic<uint64_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  uint64_t done = 0;
  std::string failure;

  void work() {
    for (uint64_t b = next++; b < total; b = next++) {
      std::string f;
      if (!failed.load()) {
        dim3 g = config.grid;
        uint3 index{unsigned(b % g.x), unsigned(b / g.x % g.y),
                    unsigned(b / (uint64_t(g.x) * g.y))};
        f = run_block(config, index, warp_size, body);
      }
      std::lock_guard lock(mutex);
      if (!f.empty() && failure.empty()) failure = f, failed = true;
      if (++done == total) finished.notify_all();
    }
  }
  std::atomic<bool> failed{false};
};

// Helper threads that run blocks of any stream's grids.
class BlockPool {
 public:
  BlockPool() {
    unsigned n = std::thread::hardware_concurrency();
    if (const char* env = std::getenv("PLEXUS_SIMT_THREADS")) n = unsigned(std::atoi(env));
    helpers_ = n > 1 ? n - 1 : 0;
  }
  unsigned helpers() const { return helpers_; }
  void post(std::shared_ptr<Grid> grid, unsigned copies) {
    std::lock_guard lock(mutex_);
    if (threads_.empty()) {
      stay_resident();
      for (unsigned i = 0; i < helpers_; ++i) threads_.emplace_back([this] { serve(); });
    }
    for (unsigned i = 0; i < copies; ++i) queue_.push_back(grid);
    ready_.notify_all();
  }

 private:
  void serve() {
    for (;;) {
      std::shared_ptr<Grid> grid;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty(); });
        grid = std::move(queue_.front());
        queue_.pop_front();
      }
      grid->work();
    }
  }
  unsigned helpers_ = 0;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Grid>> queue_;
  std::vector<std::thread> threads_;  // detached at exit: the library stays mapped
};

BlockPool& pool() {
  static BlockPool* p = new BlockPool();  // never destroyed; its threads outlive main
  return *p;
}

bool valid(const LaunchConfig& c) {
  const dim3 &g = c.grid, &b = c.block;
  uint64_t threads = uint64_t(b.x) * b.y * b.z;
  return g.x >= 1 && g.y >= 1 && g.z >= 1 && b.x >= 1 && b.y >= 1 && b.z >= 1 &&
         g.x <= 2147483647u && g.y <= 65535 && g.z <= 65535 && b.x <= 1024 && b.y <= 1024 &&
         b.z <= 64 && threads <= 1024 && c.shared_bytes <= 48 * 1024;
}

}  // namespace

std::string run_grid(const LaunchConfig& config, int warp_size, const KernelBody& body) {
  auto grid = std::make_shared<Grid>();
  grid->config = config;
  grid->warp_size = warp_size;
  grid->body = body;
  grid->total = uint64_t(config.grid.x) * config.grid.y * config.grid.z;
  uint64_t copies = std::min<uint64_t>(pool().helpers(), grid->total - 1);
  if (copies > 0) pool().post(grid, unsigned(copies));
  grid->work();
  std::unique_lock lock(grid->mutex);
  grid->finished.wait(lock, [&] { return grid->done == grid->total; });
  return grid->failure;
}

}  // namespace simt::detail

namespace simt {

int launch_warp_size() {
  return detail::g_warp_size.load();
}

void set_launch_warp_size(int lanes) {
  if (lanes == 32 || lanes == 64) detail::g_warp_size = lanes;
}

bool enqueue_grid(const LaunchConfig& config, simtStream_t stream, KernelBody body) {
  using namespace detail;
  if (has_launch_failure()) return fail(simtErrorLaunchFailure), false;
  if (!valid(config)) return fail(simtErrorInvalidConfiguration), false;
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle), false;
  int warp = launch_warp_size();
  enqueue(*s, [config, warp, body = std::move(body)] {
    std::string failure = run_grid(config, warp, body);
    if (!failure.empty()) set_launch_failure(failure);
  });
  return true;
}

}  // namespace simt
