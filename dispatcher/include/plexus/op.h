// Operator: one schema in the catalog with its dispatch table.
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>

#include "plexus/kernel.h"
#include "plexus/schema.h"
#include "plexus/shape.h"

namespace plexus {

class MetaContext;

// What a meta function computes for one call.
struct OutputSpec {
  Shape sizes;
  DType dtype;          // dtype of the result
  DType compute_dtype;  // dtype the kernel is looked up by (and inputs were converted to)
};
// Checks the arguments, computes the output and rewrites inputs for the kernel.
using MetaFn = OutputSpec (*)(MetaContext& ctx);
// Checks the arguments of a direct op that writes several tensors (Note [Ops
// that write several tensors], dispatcher/README.md) and may rewrite read-only
// ones. Returns the dtype its kernels are looked up by, or nullopt when the
// backends' kernels do not take these arguments and the composite runs.
using DirectCheckFn = std::optional<DType> (*)(MetaContext& ctx);

// How an op relates to its kernel.
enum class OpKind : uint8_t {
  Functional,  // returns a new tensor; kernel is the out variant
  Inplace,     // writes self; kernel is the out variant, or this op itself (fill_, copy_)
  Out,         // writes out; the kernel is registered on this op
  Direct,      // no meta function: the kernel gets the args as given (vendor ops, composites)
};

class Operator {
 public:
  Operator(Schema schema, uint32_t id) : schema_(std::move(schema)), name_(schema_.full_name()), id_(id) {}
  const Schema& schema() const { return schema_; }
  // "add.Tensor"
  const std::string& name() const { return name_; }
  uint32_t id() const { return id_; }
  OpKind kind() const { return kind_; }
  // The op whose table holds the backend kernels (the out variant, or itself).
  const Operator& kernel_op() const { return *kernel_op_; }
  // Index of the argument the kernel writes (out or self); -1 when none.
  int written_arg() const { return written_arg_; }
  MetaFn meta() const { return meta_; }
  // A direct op's argument check; null when it has none.
  DirectCheckFn check() const { return check_; }
  KernelFn composite() const { return composite_; }
  // The dtypes the catalog lists for this op (what a complete backend supports).
  DTypeSet catalog_dtypes() const { return catalog_dtypes_; }
  // Elementwise ops may write into an input that is exactly the output.
  bool elementwise() const { return elementwise_; }
  // Tensor arguments may live on devices other than the first one (copy_).
  bool cross_device() const { return cross_device_; }
  // Writes one value everywhere: expanded written tensors are fine (fill_).
  bool idempotent() const { return idempotent_; }
  // The kernel a backend registered here; nullptr when none. Lock-free.
  const KernelEntry* kernel(DeviceType backend) const {
    return kernels_[backend].load(std::memory_order_acquire);
  }

 private:
  friend class Dispatcher;
  Schema schema_;
  std::string name_;
  uint32_t id_;
  OpKind kind_ = OpKind::Direct;
  const Operator* kernel_op_ = this;
  int written_arg_ = -1;
  MetaFn meta_ = nullptr;
  DirectCheckFn check_ = nullptr;
  KernelFn composite_ = nullptr;
  DTypeSet catalog_dtypes_;
  bool elementwise_ = false;
  bool cross_device_ = false;
  bool idempotent_ = false;
  std::array<std::atomic<const KernelEntry*>, kMaxDeviceTypes> kernels_{};
};

}  // namespace plexus
