// sdk::Backend<Impl>: fills a plexus_backend table whose functions call the
// members of a C++ class under guard(), and registers kernels that receive
// that object. Impl derives from Backend<Impl> and defines (throwing
// sdk::Error on failure):
//
//   int32_t device_count();
//   void properties(int32_t device, plexus_device_properties& out);
//   void* allocate(int32_t device, size_t nbytes);
//   void deallocate(int32_t device, void* ptr, size_t nbytes);
//   void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes,
//               void* stream);
//   void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
//                            size_t nbytes, void* stream);
//   void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
//                            size_t nbytes, void* stream);
//   void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
//                              size_t src_offset, size_t nbytes, void* stream);
//   void synchronize(int32_t device);
//
// and optionally `const char* unavailable_reason()`, the streams (all three or none:
// void* stream_create(int32_t), void stream_destroy(int32_t, void*),
// void stream_synchronize(int32_t, void*)) and the events (all five or none, the rule
// of plugin.h: void* event_create(int32_t),
// void event_destroy(int32_t, void*), void event_record(int32_t, void* event, void* stream),
// void event_wait(int32_t, void* event, void* stream), void event_synchronize(int32_t, void*)).
//
// Kernels are registered one way, backend.register_kernel<&fn>(op, dtypes), where fn
// is void(Impl&, const plexus_kernel_call&) or void(const plexus_kernel_call&); a plugin
// that routes calls itself passes a C kernel and its user_data instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"
#include "plexus/sdk/host.hpp"
#include "plexus/sdk/kernel.hpp"

namespace plexus::sdk {
namespace detail {

template <typename T, typename = void>
struct HasUnavailableReason : std::false_type {};
template <typename T>
struct HasUnavailableReason<T, std::void_t<decltype(&T::unavailable_reason)>> : std::true_type {};
// The streams-and-events rule of plugin.h: each group is all or none, and the
// groups are independent. Any member present counts as the group attempted.
template <typename T, typename = void>
struct StreamCount : std::integral_constant<int, 0> {};
template <typename T>
struct StreamCount<T, std::void_t<decltype(&T::stream_create)>> : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct StreamDestroy : std::integral_constant<int, 0> {};
template <typename T>
struct StreamDestroy<T, std::void_t<decltype(&T::stream_destroy)>>
    : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct StreamSync : std::integral_constant<int, 0> {};
template <typename T>
struct StreamSync<T, std::void_t<decltype(&T::stream_synchronize)>>
    : std::integral_constant<int, 1> {};
template <typename T>
constexpr int kStreamFunctions =
    StreamCount<T>::value + StreamDestroy<T>::value + StreamSync<T>::value;

template <typename T, typename = void>
struct EventCreate : std::integral_constant<int, 0> {};
template <typename T>
struct EventCreate<T, std::void_t<decltype(&T::event_create)>> : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct EventDestroy : std::integral_constant<int, 0> {};
template <typename T>
struct EventDestroy<T, std::void_t<decltype(&T::event_destroy)>>
    : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct EventRecord : std::integral_constant<int, 0> {};
template <typename T>
struct EventRecord<T, std::void_t<decltype(&T::event_record)>> : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct EventWait : std::integral_constant<int, 0> {};
template <typename T>
struct EventWait<T, std::void_t<decltype(&T::event_wait)>> : std::integral_constant<int, 1> {};
template <typename T, typename = void>
struct EventSync : std::integral_constant<int, 0> {};
template <typename T>
struct EventSync<T, std::void_t<decltype(&T::event_synchronize)>>
    : std::integral_constant<int, 1> {};
template <typename T>
constexpr int kEventFunctions = EventCreate<T>::value + EventDestroy<T>::value +
                                EventRecord<T>::value + EventWait<T>::value +
                                EventSync<T>::value;

}  // namespace detail

// Copies a NUL-terminated string into a fixed char array, truncating.
template <size_t N>
void copy_string(char (&dst)[N], const char* src) noexcept {
  size_t i = 0;
  for (; src && src[i] && i + 1 < N; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

template <typename Impl>
class Backend {
 public:
  // A kernel that receives the backend object.
  using KernelFunction = void (*)(Impl& backend, const plexus_kernel_call& call);

  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // Registers the device type `name` ([a-z][a-z0-9_]*) with the host. The
  // object must then stay put until shutdown returns: the host calls it.
  // `extensions` (ABI 1.1, e.g. a plexus_graph_extension) are chained to the
  // table and must stay valid until shutdown too.
  void register_backend(const plexus_host_api* host, const char* name, uint32_t flags = 0,
                        const plexus_extension* extensions = nullptr) {
    host_ = host;
    name_ = name;
    fill_table(flags);
    table_.extensions = extensions;
    slot_ = sdk::register_backend(host, table_);
  }
  // Registers Fn(impl, call) as this device type's kernel of `op` for the
  // dtypes in dtype_mask; throws when the host refuses. Only during init.
  template <KernelFunction Fn>
  void register_kernel(const char* op, uint32_t dtype_mask) {
    register_kernel(op, dtype_mask, &kernel<Fn>, static_cast<Backend*>(this));
  }

  // The same for a kernel that needs no backend object: Fn(call).
  template <sdk::KernelFunction Fn>
  void register_kernel(const char* op, uint32_t dtype_mask) {
    register_kernel(op, dtype_mask, &kernel_trampoline<Fn>, const_cast<plexus_host_api*>(host_));
  }

  // The same for a C kernel with its own user_data (a plugin that routes calls
  // itself, e.g. to a vendor library first). All three spellings end here.
  void register_kernel(const char* op, uint32_t dtype_mask, plexus_kernel_fn fn,
                       void* user_data) {
    check(host_->register_kernel(host_->host_ctx, slot_, op, dtype_mask, fn, user_data),
          std::string("register_kernel(\"") + op + "\")");
  }

  const plexus_host_api* host() const { return host_; }
  int32_t slot() const { return slot_; }
  const std::string& name() const { return name_; }

 protected:
  Backend() = default;
  ~Backend() = default;

 private:
  static Impl& self(void* user_data) {
    return static_cast<Impl&>(*static_cast<Backend*>(user_data));
  }
  static const plexus_host_api* host_of(void* user_data) {
    return static_cast<Backend*>(user_data)->host_;
  }
  // For functions without a status: an exception is logged, not returned.
  template <typename F>
  static void logged(void* user_data, const char* what, F&& f) noexcept {
    const plexus_host_api* host = host_of(user_data);
    try {
      f();
    } catch (const std::exception& e) {
      sdk::log(host, PLEXUS_LOG_ERROR, std::string(what) + ": " + e.what());
    } catch (...) {
      sdk::log(host, PLEXUS_LOG_ERROR, std::string(what) + ": unknown exception");
    }
  }

  template <KernelFunction Fn>
  static plexus_status kernel(void* ud, const plexus_kernel_call* call) noexcept {
    return guard(host_of(ud), [&] { Fn(self(ud), *call); });
  }

  void fill_table(uint32_t flags) {
    table_ = plexus_backend{};
    table_.struct_size = sizeof(plexus_backend);
    table_.name = name_.c_str();
    table_.user_data = static_cast<Backend*>(this);
    table_.flags = flags;
    table_.device_count = [](void* ud) -> int32_t {
      int32_t n = 0;
      logged(ud, "device_count", [&] { n = self(ud).device_count(); });
      return n;
    };
    if constexpr (detail::HasUnavailableReason<Impl>::value)
      table_.unavailable_reason = [](void* ud) -> const char* {
        const char* r = nullptr;
        logged(ud, "unavailable_reason", [&] { r = self(ud).unavailable_reason(); });
        return r;
      };
    table_.get_properties = [](void* ud, int32_t dev, plexus_device_properties* out) {
      return guard(host_of(ud), [&] { self(ud).properties(dev, *out); });
    };
    table_.allocate = [](void* ud, int32_t dev, size_t n, void** out) {
      return guard(host_of(ud), [&] { *out = self(ud).allocate(dev, n); });
    };
    table_.deallocate = [](void* ud, int32_t dev, void* p, size_t n) {
      logged(ud, "deallocate", [&] { self(ud).deallocate(dev, p, n); });
    };
    table_.memset = [](void* ud, int32_t dev, void* p, size_t off, int32_t v, size_t n, void* s) {
      return guard(host_of(ud), [&] { self(ud).memset(dev, p, off, v, n, s); });
    };
    table_.copy_host_to_device = [](void* ud, int32_t dev, void* dst, size_t dst_off,
                                    const void* src, size_t n, void* s) {
      return guard(host_of(ud),
                   [&] { self(ud).copy_host_to_device(dev, dst, dst_off, src, n, s); });
    };
    table_.copy_device_to_host = [](void* ud, int32_t dev, void* dst, const void* src,
                                    size_t src_off, size_t n, void* s) {
      return guard(host_of(ud),
                   [&] { self(ud).copy_device_to_host(dev, dst, src, src_off, n, s); });
    };
    table_.copy_device_to_device = [](void* ud, int32_t dev, void* dst, size_t dst_off,
                                      const void* src, size_t src_off, size_t n, void* s) {
      return guard(host_of(ud),
                   [&] { self(ud).copy_device_to_device(dev, dst, dst_off, src, src_off, n, s); });
    };
    table_.synchronize = [](void* ud, int32_t dev) {
      return guard(host_of(ud), [&] { self(ud).synchronize(dev); });
    };
    constexpr int streams = detail::kStreamFunctions<Impl>, events = detail::kEventFunctions<Impl>;
    static_assert(streams == 0 || streams == 3,
                  "sdk::Backend: implement all three stream functions (stream_create, "
                  "stream_destroy, stream_synchronize) or none (plugin.h)");
    static_assert(events == 0 || events == 5,
                  "sdk::Backend: implement all five event functions (event_create, event_destroy, "
                  "event_record, event_wait, event_synchronize) or none (plugin.h)");
    if constexpr (streams == 3) fill_streams();
    if constexpr (events == 5) fill_events();
  }

  void fill_streams() {
    table_.stream_create = [](void* ud, int32_t dev, void** out) {
      return guard(host_of(ud), [&] { *out = self(ud).stream_create(dev); });
    };
    table_.stream_destroy = [](void* ud, int32_t dev, void* s) {
      logged(ud, "stream_destroy", [&] { self(ud).stream_destroy(dev, s); });
    };
    table_.stream_synchronize = [](void* ud, int32_t dev, void* s) {
      return guard(host_of(ud), [&] { self(ud).stream_synchronize(dev, s); });
    };
  }

  void fill_events() {
    table_.event_create = [](void* ud, int32_t dev, void** out) {
      return guard(host_of(ud), [&] { *out = self(ud).event_create(dev); });
    };
    table_.event_destroy = [](void* ud, int32_t dev, void* e) {
      logged(ud, "event_destroy", [&] { self(ud).event_destroy(dev, e); });
    };
    table_.event_record = [](void* ud, int32_t dev, void* e, void* s) {
      return guard(host_of(ud), [&] { self(ud).event_record(dev, e, s); });
    };
    table_.event_wait = [](void* ud, int32_t dev, void* e, void* s) {
      return guard(host_of(ud), [&] { self(ud).event_wait(dev, e, s); });
    };
    table_.event_synchronize = [](void* ud, int32_t dev, void* e) {
      return guard(host_of(ud), [&] { self(ud).event_synchronize(dev, e); });
    };
  }

  plexus_backend table_{};
  std::string name_;
  const plexus_host_api* host_ = nullptr;
  int32_t slot_ = -1;
};

}  // namespace plexus::sdk
