// Tensor: a strided view (sizes, strides, offset, dtype) of a Storage.
// Views are metadata only; ops are declared here as methods and run through
// the dispatcher (plexus/ops.h has the free-function forms).
#pragma once

#include <boost/smart_ptr/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/dtype.h"
#include "plexus/scalar.h"
#include "plexus/shape.h"
#include "plexus/storage.h"

namespace plexus {

struct AutogradMeta;  // plexus/autograd.h
namespace autograd {
class Node;
}

// The shared state of a tensor handle.
struct TensorImpl : boost::intrusive_ref_counter<TensorImpl> {
  Storage storage;
  int64_t offset = 0;  // in elements
  Shape sizes;
  Shape strides;  // in elements; may be 0 (expanded) or negative-free arbitrary
  int64_t numel = 0;
  DType dtype = DType::F32;
  bool contiguous = true;
  // A 0-d cpu tensor made from a C++ number: type promotion treats it as a
  // scalar (PyTorch's wrapped number), and it may join calls on any device.
  bool wrapped_number = false;
  // Autograd state (requires_grad, grad, grad_fn); null for most tensors.
  std::shared_ptr<AutogradMeta> autograd;
};

// dtype and device for factories ("empty(sizes, {DType::F16, dev})").
struct TensorOptions {
  DType dtype = DType::F32;
  Device device = Device();
  TensorOptions() = default;
  TensorOptions(DType t) : dtype(t) {}
  TensorOptions(Device d) : device(d) {}
  TensorOptions(DType t, Device d) : dtype(t), device(d) {}
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(boost::intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  // A tensor over `storage`; throws InvalidArgument when the view does not fit
  // the storage or a size or stride is negative.
  static Tensor make(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                     int64_t offset = 0);

  bool defined() const { return impl_ != nullptr; }
  IntArrayRef sizes() const { return impl_->sizes; }
  IntArrayRef strides() const { return impl_->strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
  int64_t numel() const { return impl_->numel; }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device(); }
  int64_t storage_offset() const { return impl_->offset; }
  const Storage& storage() const { return impl_->storage; }
  size_t itemsize() const { return plexus::itemsize(impl_->dtype); }
  size_t nbytes() const { return static_cast<size_t>(impl_->numel) * itemsize(); }
  // Host address of element [0, ..., 0]: meaningful only on the cpu. Device
  // memory is addressed as (storage()->data(), byte offset) instead.
  void* data_ptr() const {
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * itemsize();
  }
  // Typed host pointer; throws unless the tensor is on cpu with dtype T's type.
  template <typename T>
  T* data() const;
  bool is_contiguous() const { return impl_->contiguous; }
  // Same handle (not just same storage).
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  // Work queued on `stream` (not the stream this tensor was allocated on)
  // uses this tensor: its memory is not reused until that work is done
  // (plexus/stream.h; PyTorch's record_stream). Undefined tensors: no-op.
  void record_stream(const Stream& stream) const {
    if (impl_) impl_->storage->record_stream(stream);
  }
  // "Tensor(float32, [2, 3], cpu)"
  std::string str() const;
  TensorImpl* impl() const { return impl_.get(); }

  // Views: share storage, change only metadata.
  Tensor view(IntArrayRef sizes) const;     // one size may be -1; strides must allow it
  Tensor reshape(IntArrayRef sizes) const;  // a view when possible, else a contiguous copy
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;  // transpose of a tensor with at most 2 dims
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor expand(IntArrayRef sizes) const;  // -1 keeps a size; new leading dims allowed
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> offset = std::nullopt) const;

  // Copies and conversions (dispatched).
  Tensor contiguous() const;  // self when already contiguous
  Tensor clone() const;
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;
  Tensor to(Device device, DType dtype) const;
  Tensor cpu() const { return to(Device()); }
  // The single value of a 1-element tensor, copied to the host.
  Scalar item() const;
  template <typename T>
  T item() const;
  // All values, converted to T and copied to the host in row-major order.
  template <typename T>
  std::vector<T> tolist() const;

  // Ops as methods; see plexus/ops.h for what each does.
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  const Tensor& add_(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  const Tensor& sub_(const Tensor& other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  const Tensor& mul_(const Tensor& other) const;
  Tensor div(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  const Tensor& div_(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;
  const Tensor& fill_(Scalar value) const;
  const Tensor& zero_() const;
  const Tensor& copy_(const Tensor& src) const;
  Tensor sum(std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false) const;
  Tensor mean(std::optional<std::vector<int64_t>> dim = std::nullopt, bool keepdim = false) const;
  Tensor amax(std::vector<int64_t> dim = {}, bool keepdim = false) const;
  Tensor amin(std::vector<int64_t> dim = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor matmul(const Tensor& other) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  const Tensor& lerp_(const Tensor& end, Scalar weight) const;
  const Tensor& addcmul_(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;
  const Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;

  // Autograd (autograd/; plexus/autograd.h has the rest).
  // Whether gradients flow into this tensor. Only floating tensors may.
  bool requires_grad() const;
  // Marks a leaf as requiring grad (or not); returns self. Throws for
  // integer and bool tensors, and for non-leaves asked to stop.
  const Tensor& requires_grad_(bool on = true) const;
  // The accumulated gradient of a leaf; undefined until backward reaches it.
  Tensor grad() const;
  // Sets (or, with an undefined tensor, clears) the accumulated gradient.
  void set_grad(const Tensor& grad) const;
  // True for tensors no recorded op made: made by the user, or not requiring grad.
  bool is_leaf() const;
  // The node that made this tensor (name(): "AddmmBackward"); null for leaves.
  autograd::Node* grad_fn() const;
  // The same storage and view, cut from the graph: never requires grad.
  Tensor detach() const;
  // Computes the gradients of this tensor with respect to the leaves that
  // require grad and adds them to their grad(). `gradient` may be left out
  // for a 1-element tensor (it is then 1). create_graph (higher-order
  // gradients) is not supported yet: asking for it is an error.
  void backward(const Tensor& gradient = {}, bool retain_graph = false,
                bool create_graph = false) const;
  // Runs `hook` with this tensor's gradient whenever one is computed; a
  // defined result replaces the gradient. Returns the hook's handle.
  size_t register_hook(std::function<Tensor(const Tensor&)> hook) const;
  // Leaves only: runs `hook` with this tensor each time backward has added a
  // gradient to its grad() (PyTorch's register_post_accumulate_grad_hook).
  void register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;

 private:
  boost::intrusive_ptr<TensorImpl> impl_;
};

namespace detail {
// Set by autograd: called for each view made of a tensor that has autograd
// state, to give the view its grad_fn (`name`: "TransposeBackward").
using ViewHook = void (*)(const Tensor& base, const Tensor& view, const char* name);
extern ViewHook g_view_hook;
// Set by graph capture (graph/): told of each host read of a tensor's values
// (item(), tolist()), which a captured graph cannot replay.
using HostReadHook = void (*)(const Tensor& t, const char* what);
extern HostReadHook g_host_read_hook;
// Set by graph capture: told whenever a leaf's gradient is set or cleared
// (set_grad, backward's accumulation), a side effect a graph must replay.
using GradSetHook = void (*)(const Tensor& leaf, const Tensor& grad);
extern GradSetHook g_grad_set_hook;
}  // namespace detail

// Host-side C++ type of a dtype, and the dtype of a C++ type.
template <typename T>
constexpr DType dtype_of();

}  // namespace plexus

#include "plexus/tensor_inl.h"
