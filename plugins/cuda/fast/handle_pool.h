// Library handles (cuBLAS, cuDNN) per device, leased to one call at a time:
// the libraries' handles must not be used from two threads at once, and
// creating one costs milliseconds, so they are kept for reuse.
#pragma once

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "gpu.h"

namespace plexus::gpu {

template <typename H>
class HandlePool {
 public:
  // An idle handle of `device`, or create() (called with the device current).
  template <typename Create>
  H acquire(int32_t device, Create&& create) {
    {
      std::lock_guard lock(mutex_);
      for (size_t i = 0; i < idle_.size(); ++i) {
        if (idle_[i].first != device) continue;
        H h = idle_[i].second;
        idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
        return h;
      }
    }
    H h = create();
    std::lock_guard lock(mutex_);
    all_.emplace_back(device, h);
    return h;
  }
  void release(int32_t device, H h) {
    std::lock_guard lock(mutex_);
    idle_.emplace_back(device, h);
  }
  // Destroys every handle ever created (shutdown: no call is in flight).
  template <typename Destroy>
  void destroy_all(Destroy&& destroy) {
    for (auto& [device, h] : all_) {
      (void)gpuSetDevice(device);
      destroy(h);
    }
    all_.clear();
    idle_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<int32_t, H>> idle_;
  std::vector<std::pair<int32_t, H>> all_;
};

}  // namespace plexus::gpu
