// The cpu plugin's oneDNN glue: one engine for the process, a stream per
// thread, a thread-safe cache of primitives keyed by what they were made for,
// plexus_tensor -> dnnl::memory::desc/memory, and dtype conversions for the
// dtypes this oneDNN (2.6) does not compute in (f16).
#pragma once

#include <cstdint>
#include <dnnl.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <utility>

#include "plexus/plugin.hpp"

namespace plexus::cpu::onednn {

// The cpu engine every primitive is created on.
const dnnl::engine& engine();
// An in-order stream on engine() for the calling thread (oneDNN streams may
// not be shared between threads); kernels execute on it and wait.
dnnl::stream& stream();

// True for the dtypes oneDNN's matmul and convolution compute in here (f32, bf16).
bool computes_in(plexus_dtype d);
// The oneDNN data type storing d; throws Error(UNSUPPORTED) for f64, i16, i64, bool.
dnnl::memory::data_type data_type(plexus_dtype d);

// A memory descriptor of t's sizes and strides (in elements), as t's dtype
// or as `dtype` (for a copy of t converted to it with the same strides).
dnnl::memory::desc desc(const plexus_tensor& t);
dnnl::memory::desc desc(const plexus_tensor& t, plexus_dtype dtype);
// The same for explicit sizes and strides.
dnnl::memory::desc desc(plexus_dtype d, const dnnl::memory::dims& sizes,
                        const dnnl::memory::dims& strides);
// A dense row-major descriptor.
dnnl::memory::desc dense_desc(plexus_dtype d, const dnnl::memory::dims& sizes);
// A memory object over t's elements (no copy): storage + offset.
dnnl::memory memory(const plexus_tensor& t);
dnnl::memory memory(const dnnl::memory::desc& md, void* data);
// A memory object over a float holding `value`, for run-time scales; `value`
// must outlive the execution.
dnnl::memory scalar_memory(float* value);

// True when oneDNN picked its reference implementation (correct but slow):
// callers then stage operands into dense layouts and try again.
bool is_reference(const dnnl::primitive_desc_base& pd);

// Attributes every primitive here is created with: the scratchpad is passed
// in by execute() (user mode). In library mode this oneDNN build shares one
// scratchpad between primitives, so a cached primitive run by two threads at
// once corrupted results (caught by the conformance suite's threads cases).
dnnl::primitive_attr attr();

// Executes p on this thread's stream with `args` (plus a scratchpad of this
// thread's when p needs one) and waits for it.
void execute(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args);

// What a cached primitive was created for: an op name followed by numbers
// (dtypes, sizes, strides, attributes), compared byte for byte.
class Key {
 public:
  explicit Key(std::string_view op) : bytes_(op) { bytes_.push_back('\0'); }
  Key& add(int64_t v) { return raw(&v, sizeof v); }
  Key& add(double v) { return raw(&v, sizeof v); }
  // dtype, ndim, sizes and strides.
  Key& add(const plexus_tensor& t);
  // Data type, dims and layout (strides or blocking).
  Key& add(const dnnl::memory::desc& md);
  const std::string& str() const { return bytes_; }

 private:
  Key& raw(const void* p, size_t n) {
    bytes_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string bytes_;
};

namespace detail {
// The type-erased cache behind cached(): returns the entry stored under key
// for `type`, making it with make() on a miss. make runs without the lock held.
std::shared_ptr<void> lookup(const std::string& key, std::type_index type,
                             std::shared_ptr<void> (*make)(void*), void* ctx);
}  // namespace detail

// The value cached under key, made by make() on the first use. T is anything
// copyable (a primitive, or a struct of primitives and descriptors). The cache
// is process-wide, bounded, and safe to use from any thread.
template <typename T, typename Make>
T cached(const Key& key, Make&& make) {
  using F = std::remove_reference_t<Make>;
  auto thunk = [](void* ctx) -> std::shared_ptr<void> {
    return std::make_shared<T>((*static_cast<F*>(ctx))());
  };
  void* ctx = const_cast<std::remove_const_t<F>*>(&make);
  return *static_cast<const T*>(
      detail::lookup(key.str(), std::type_index(typeid(T)), thunk, ctx).get());
}

// A reorder between two descriptors, cached.
dnnl::reorder reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// A strided view for convert(): dtype, element [0, ..., 0], sizes, strides.
struct View {
  plexus_dtype dtype;
  void* data;
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides;
};
// Copies the elements of `from` into `to` (same sizes, no overlap unless
// identical), converting between f16, bf16 and f32 (other dtypes only copy),
// times `scale` (float dtypes only), in parallel. Dense f16 <-> f32 rows use F16C.
void convert(const View& from, const View& to, float scale = 1.0f);

}  // namespace plexus::cpu::onednn
