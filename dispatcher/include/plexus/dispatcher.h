// Dispatcher: owns every operator, routes each call through the active layers
// to a backend kernel, a composite or the fallback policy.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plexus/kernel.h"
#include "plexus/op.h"

namespace plexus {

// What happens when a backend has no kernel (and the op no composite).
enum class FallbackPolicy : uint8_t {
  Cpu,    // copy inputs to the host, run the cpu kernel, copy the result back; warn once per op
  Error,  // raise Unsupported naming op, dtype, backend and what the backend supports
};
std::string_view fallback_policy_name(FallbackPolicy p);

// A catalog entry: up to three schemas sharing one meta function and kernel.
// The functional and in-place schemas share their arguments; the out schema
// has the same arguments followed by the keyword-only `out`.
struct OpDefinition {
  std::string_view functional;  // "add.Tensor(...) -> Tensor", or empty
  std::string_view inplace;     // "add_.Tensor(Tensor(a!) self, ...) -> Tensor(a!)", or empty
  std::string_view out;         // "add.out(..., Tensor(a!) out) -> Tensor(a!)", or empty
  MetaFn meta = nullptr;        // required when there is an out or in-place schema
  KernelFn composite = nullptr; // used when a backend has no kernel
  DTypeSet dtypes;              // compute dtypes the catalog lists for the op
  bool elementwise = false;     // an input may be exactly the output
  bool cross_device = false;    // tensor arguments may be on other devices (copy_)
  // Every element written gets the same value (fill_): the written tensor may
  // be an expanded view, and the kernel gets its distinct elements only.
  bool idempotent = false;
};

// How often one op fell back to the cpu, per backend.
struct FallbackCount {
  std::string op;
  std::string backend;
  uint64_t count;
};

class Dispatcher {
 public:
  // The process-wide dispatcher, with the standard catalog defined.
  static Dispatcher& get();

  // Defines the ops of one catalog entry; throws if a name exists or the
  // schemas do not fit together. Returns the first op defined.
  const Operator& define(const OpDefinition& def);
  // Defines an op without a meta function (a vendor's "myvendor::fused_gelu"):
  // its kernels receive the arguments as given and set the result. With a
  // `check`, the op may write several tensor arguments (Note [Ops that write
  // several tensors]); `dtypes` are those the catalog lists for it.
  const Operator& define_direct(std::string_view schema, KernelFn composite = nullptr,
                                DirectCheckFn check = nullptr, DTypeSet dtypes = {});
  // The op with this full name ("add.Tensor", "mm"), or nullptr.
  const Operator* find_op(std::string_view name) const;
  // Like find_op but throws NotFound, suggesting ops of the same base name.
  const Operator& op(std::string_view name) const;
  // Every op, in definition order.
  std::vector<const Operator*> ops() const;

  // Registers `fn` as `backend`'s kernel for `op` (the op that holds kernels:
  // "add.out", "fill_.Scalar", "mm.out"), for the listed dtypes. Replacing a
  // kernel needs replace=true. The one entry point for C++ kernels and the
  // plugin ABI alike. Thread-safe; readers never block.
  void register_kernel(std::string_view op, DeviceType backend, KernelFn fn, void* ctx,
                       DTypeSet dtypes, std::string_view source, bool replace = false);
  // Removes one backend's kernel for `op`, if any.
  void unregister_kernel(std::string_view op, DeviceType backend);
  // Removes every kernel of a backend (before its plugin is unloaded).
  void unregister_backend(DeviceType backend);

  // The kernel of a layer, run for every op while the layer is active.
  void set_layer_kernel(Layer layer, LayerFn fn, void* ctx);
  // Turns a layer on or off for all threads.
  void enable_layer(Layer layer, bool on);
  bool layer_enabled(Layer layer) const;

  void set_fallback_policy(FallbackPolicy p);
  FallbackPolicy fallback_policy() const;
  std::vector<FallbackCount> fallback_counts() const;

  // Calls `op` with boxed arguments (one per schema argument, defaults
  // included). Returns the result tensor (the written tensor for in-place and
  // out ops). Errors come back as plexus::Error with the op in their context.
  Tensor call(const Operator& op, std::span<const Value> args);
  // Continues a call below the layers that `keys` no longer holds.
  Tensor redispatch(const Operator& op, DispatchKeys keys, std::span<const Value> args);

  // Runs the backend step of a call once and keeps what it resolved (the
  // kernel, the compute dtype, the arguments its meta function rewrote) so the
  // same call on the same tensors runs again without meta work: graph replay.
  // Returns null when the call cannot be kept that way (an input converted or
  // moved, a temporary, a composite or the cpu fallback): run it with
  // redispatch instead. The tensors `args` refer to must outlive the result.
  std::unique_ptr<class PreparedCall> prepare(const Operator& op, Device device,
                                              std::span<const Value> args);

  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  struct State;  // private to the implementation (src/call/state.h)

 private:
  Dispatcher();
  ~Dispatcher();
  Operator& add_op(std::string_view schema_text);
  std::unique_ptr<State> state_;
};

// A backend call resolved once (Dispatcher::prepare), run again by run().
class PreparedCall {
 public:
  ~PreparedCall();
  // Runs the kernel on the tensors it was prepared with; if the backend's
  // kernel changed since (a plugin reloaded), runs the call in full instead.
  void run();

 private:
  friend class Dispatcher;
  PreparedCall() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Turns a layer on (include) or off (exclude) for the current thread while alive.
class LayerGuard {
 public:
  enum class Mode : uint8_t { Include, Exclude };
  LayerGuard(Layer layer, Mode mode);
  ~LayerGuard();
  LayerGuard(const LayerGuard&) = delete;
  LayerGuard& operator=(const LayerGuard&) = delete;

 private:
  LayerSet saved_include_, saved_exclude_;
};

// While alive, calls on this thread run their meta functions and make their
// results but run no kernel, except kernels that read no tensor (fill_,
// zero_: a factory's values stay right) and direct ops that return a result
// (they have no meta function to make it). Ops that write several tensors
// (the optimizers' fused steps) run their checks and skip their writes.
// plexus::graph::trace uses it to capture a graph without running kernels.
class MetaOnlyGuard {
 public:
  MetaOnlyGuard();
  ~MetaOnlyGuard();
  MetaOnlyGuard(const MetaOnlyGuard&) = delete;
  MetaOnlyGuard& operator=(const MetaOnlyGuard&) = delete;
  // Whether one is alive on this thread.
  static bool active();

 private:
  bool saved_;
};

}  // namespace plexus
