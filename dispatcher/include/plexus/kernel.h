// Kernels and layers as the dispatcher stores them: one calling convention
// for native kernels, composites and the plugin ABI's trampolines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "plexus/device.h"
#include "plexus/dtype.h"
#include "plexus/tensor.h"
#include "plexus/value.h"

namespace plexus {

class Operator;

// One call of a kernel. For an op with an out variant, `args` follow the out
// schema and the kernel writes into the written argument (out, or self for
// fill_/copy_): every input already has the output's shape (broadcast as
// stride-0 views) and the compute dtype, on `device`. For an op without a meta
// function the kernel reads its arguments as given and sets `result`.
struct KernelCall {
  const Operator& op;
  std::span<const Value> args;
  Device device;
  DType dtype;    // the compute dtype the kernel was chosen for
  Tensor result;  // set by kernels of ops without a meta function
  // Set by a kernel or composite that does not take these arguments (a
  // plugin kernel returns PLEXUS_KERNEL_DECLINED): the dispatcher then goes on
  // as if it were not there: the composite after a kernel, then the fallback
  // policy. A kernel that declines has written nothing.
  bool declined = false;
  std::string declined_because;  // the plugin's message, when it gave one
};

// A native kernel or composite. Throws plexus::Error on failure.
using KernelFn = void (*)(void* ctx, KernelCall& call);

// Layers sit above the backends, highest priority first in this order.
// Trace (graph capture) sits below Autograd, so it sees the backward ops the
// engine dispatches as well as the forward ones.
enum class Layer : uint8_t { Profiler = 0, Autograd = 1, Trace = 2 };
inline constexpr int kNumLayers = 3;
using LayerSet = uint32_t;
constexpr LayerSet layer_bit(Layer l) { return 1u << static_cast<int>(l); }

// The keys of one call: which layers still run, and the backend below them.
struct DispatchKeys {
  LayerSet layers = 0;
  Device device;
};

// A layer kernel: does its work around Dispatcher::redispatch(op, keys, args).
// `keys` arrive with this layer already removed, so passing them on continues below.
using LayerFn = Tensor (*)(void* ctx, const Operator& op, DispatchKeys keys,
                           std::span<const Value> args, Layer self);

// What is registered for one backend of one op.
struct KernelEntry {
  KernelFn fn;
  void* ctx;
  DTypeSet dtypes;
  std::string_view source;  // who registered it ("cpu plugin", "test"); owned by the dispatcher
};

}  // namespace plexus
