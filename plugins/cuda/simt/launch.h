// The launch shim behind PLEXUS_LAUNCH on SIMT: checks the configuration
// (errors go to simtGetLastError, like CUDA's), copies the arguments as the
// kernel's parameter types, and queues the grid on the stream.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>

#include "language.h"
#include "runtime.h"

namespace simt {

// One GPU thread's work: calls the kernel with the launch's arguments.
using KernelBody = std::function<void()>;

struct LaunchConfig {
  const char* kernel_name;
  dim3 grid, block;
  size_t shared_bytes;
};

// Validates config and queues the grid on stream; false (with the last error
// set) when the configuration is invalid.
bool enqueue_grid(const LaunchConfig& config, simtStream_t stream, KernelBody body);

// The warp size launches use: PLEXUS_SIMT_WARP_SIZE (32 or 64) from the
// environment, else from the build's definitions, else 32. Tests switch it.
int launch_warp_size();
void set_launch_warp_size(int lanes);

template <typename... Params, typename... Args>
void launch_named(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
                  size_t shared_bytes, simtStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "kernel launched with the wrong argument count");
  static_assert((!std::is_reference_v<Params> && ...), "kernel parameters are passed by value");
  auto packed = std::make_shared<std::tuple<Params...>>(std::forward<Args>(args)...);
  enqueue_grid({name, grid, block, shared_bytes}, stream,
               [kernel, packed] { std::apply(kernel, *packed); });
}

}  // namespace simt
