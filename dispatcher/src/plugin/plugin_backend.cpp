#include "plugin/plugin_backend.h"

#include <fmt/format.h>

#include <cstddef>

#include "plexus/error.h"
#include "plexus/log.h"
#include "plugin/trampoline.h"

namespace plexus {

namespace {
// The size of plexus_backend in ABI 1.0: every plugin's table is at least this big.
constexpr size_t kBackendSize10 = offsetof(plexus_backend, extensions) + sizeof(void*);

bool valid_name(const char* n) {
  if (!n || !*n || !(n[0] >= 'a' && n[0] <= 'z')) return false;
  for (const char* c = n; *c; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
  return std::strlen(n) <= 31;
}
}  // namespace

PluginBackend::PluginBackend(const plexus_backend& t, std::string plugin)
    : t_(t), plugin_(std::move(plugin)) {
  PLEXUS_CHECK(t.struct_size >= kBackendSize10, ErrorCode::InvalidArgument,
               "plugin '{}': plexus_backend.struct_size is {}, smaller than ABI 1.0's {}",
               plugin_, t.struct_size, kBackendSize10);
  PLEXUS_CHECK(valid_name(t.name), ErrorCode::InvalidArgument,
               "plugin '{}': backend name '{}' is not valid: expected [a-z][a-z0-9_]*, at most 31 "
               "characters",
               plugin_, t.name ? t.name : "(null)");
  std::string missing;
  auto need = [&](const void* fn, const char* name) {
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(reinterpret_cast<const void*>(t.device_count), "device_count");
  need(reinterpret_cast<const void*>(t.get_properties), "get_properties");
  need(reinterpret_cast<const void*>(t.allocate), "allocate");
  need(reinterpret_cast<const void*>(t.deallocate), "deallocate");
  need(reinterpret_cast<const void*>(t.memset), "memset");
  need(reinterpret_cast<const void*>(t.copy_host_to_device), "copy_host_to_device");
  need(reinterpret_cast<const void*>(t.copy_device_to_host), "copy_device_to_host");
  need(reinterpret_cast<const void*>(t.copy_device_to_device), "copy_device_to_device");
  need(reinterpret_cast<const void*>(t.synchronize), "synchronize");
  PLEXUS_CHECK(missing.empty(), ErrorCode::InvalidArgument,
               "plugin '{}': backend '{}' lacks required functions: {}", plugin_, t.name, missing);
  // The streams-and-events rule of plugin.h: two groups, each all or none.
  int streams = !!t.stream_create + !!t.stream_destroy + !!t.stream_synchronize;
  PLEXUS_CHECK(streams == 0 || streams == 3, ErrorCode::InvalidArgument,
               "plugin '{}': backend '{}' must provide all stream functions or none", plugin_,
               t.name);
  int events = !!t.event_create + !!t.event_destroy + !!t.event_record + !!t.event_wait +
               !!t.event_synchronize;
  PLEXUS_CHECK(events == 0 || events == 5, ErrorCode::InvalidArgument,
               "plugin '{}': backend '{}' must provide all event functions or none", plugin_,
               t.name);
  // ABI 1.1: a graph compiler, chained among the extensions. Unknown types
  // are skipped; a graph extension must be whole.
  for (const plexus_extension* e = t.extensions; e; e = e->next) {
    if (e->type != PLEXUS_EXTENSION_GRAPH) continue;
    PLEXUS_CHECK(e->struct_size >= sizeof(plexus_graph_extension), ErrorCode::InvalidArgument,
                 "plugin '{}': backend '{}': its graph extension is {} bytes, expected at least "
                 "{} (plugin.h, ABI 1.1)",
                 plugin_, t.name, e->struct_size, sizeof(plexus_graph_extension));
    const auto* g = reinterpret_cast<const plexus_graph_extension*>(e);
    PLEXUS_CHECK(g->supports && g->compile && g->run && g->release, ErrorCode::InvalidArgument,
                 "plugin '{}': backend '{}': its graph extension must provide supports, compile, "
                 "run and release",
                 plugin_, t.name);
    graph_ = g;
  }
}

void PluginBackend::check(plexus_status st, const char* what, int index) const {
  if (st == PLEXUS_OK) return;
  Error e = plugin_error(st, plugin_, fmt::format("{} on {}:{}", what, t_.name, index));
  throw e.with_context({"", "", t_.name, fmt::format("{}:{}", t_.name, index)});
}

int PluginBackend::device_count() {
  int32_t n = t_.device_count(t_.user_data);
  return n < 0 ? 0 : n;
}

std::string PluginBackend::unavailable_reason() {
  const char* r = t_.unavailable_reason ? t_.unavailable_reason(t_.user_data) : nullptr;
  return r ? r : "";
}

DeviceProperties PluginBackend::properties(int index) {
  plexus_device_properties p{};
  p.struct_size = sizeof(p);
  check(t_.get_properties(t_.user_data, index, &p), "get_properties", index);
  p.name[sizeof(p.name) - 1] = 0;
  p.vendor[sizeof(p.vendor) - 1] = 0;
  static constexpr const char* kKinds[] = {"cpu", "gpu", "emulated", "accelerator"};
  return {p.name, p.vendor, (p.kind >= 0 && p.kind <= 3) ? kKinds[p.kind] : "accelerator",
          static_cast<size_t>(p.total_memory)};
}

void* PluginBackend::allocate(int index, size_t nbytes) {
  used_.store(true, std::memory_order_relaxed);
  void* out = nullptr;
  check(t_.allocate(t_.user_data, index, nbytes, &out), "allocate", index);
  PLEXUS_CHECK(out != nullptr, ErrorCode::Internal,
               "plugin '{}': allocate of {} bytes on {}:{} returned OK but no memory", plugin_,
               nbytes, t_.name, index);
  return out;
}

void PluginBackend::deallocate(int index, void* ptr, size_t nbytes) noexcept {
  t_.deallocate(t_.user_data, index, ptr, nbytes);
}

void PluginBackend::copy_from_host(int index, void* dst, size_t dst_offset, const void* src,
                                   size_t n) {
  check(t_.copy_host_to_device(t_.user_data, index, dst, dst_offset, src, n, nullptr),
        "copy_host_to_device", index);
}

void PluginBackend::copy_to_host(int index, void* dst, const void* src, size_t src_offset,
                                 size_t n) {
  check(t_.copy_device_to_host(t_.user_data, index, dst, src, src_offset, n, nullptr),
        "copy_device_to_host", index);
}

void PluginBackend::copy_on_device(int index, void* dst, size_t dst_offset, const void* src,
                                   size_t src_offset, size_t n) {
  check(t_.copy_device_to_device(t_.user_data, index, dst, dst_offset, src, src_offset, n,
                                 nullptr),
        "copy_device_to_device", index);
}

void PluginBackend::synchronize(int index) {
  check(t_.synchronize(t_.user_data, index), "synchronize", index);
}

void* PluginBackend::create_stream(int index) {
  PLEXUS_CHECK(t_.stream_create, ErrorCode::Unsupported, "plugin '{}': backend '{}' has no streams",
               plugin_, t_.name);
  used_.store(true, std::memory_order_relaxed);
  void* s = nullptr;
  check(t_.stream_create(t_.user_data, index, &s), "stream_create", index);
  return s;
}

void PluginBackend::destroy_stream(int index, void* stream) noexcept {
  if (t_.stream_destroy && stream) t_.stream_destroy(t_.user_data, index, stream);
}

void PluginBackend::synchronize_stream(int index, void* stream) {
  if (!t_.stream_synchronize || !stream) return synchronize(index);
  check(t_.stream_synchronize(t_.user_data, index, stream), "stream_synchronize", index);
}

void* PluginBackend::create_event(int index) {
  PLEXUS_CHECK(t_.event_create, ErrorCode::Unsupported, "plugin '{}': backend '{}' has no events",
               plugin_, t_.name);
  void* e = nullptr;
  check(t_.event_create(t_.user_data, index, &e), "event_create", index);
  return e;
}

void PluginBackend::destroy_event(int index, void* event) noexcept {
  if (t_.event_destroy && event) t_.event_destroy(t_.user_data, index, event);
}

void PluginBackend::record_event(int index, void* event, void* stream) {
  PLEXUS_CHECK(t_.event_record, ErrorCode::Unsupported, "plugin '{}': backend '{}' has no events",
               plugin_, t_.name);
  check(t_.event_record(t_.user_data, index, event, stream), "event_record", index);
}

void PluginBackend::wait_event(int index, void* event, void* stream) {
  PLEXUS_CHECK(t_.event_wait, ErrorCode::Unsupported, "plugin '{}': backend '{}' has no events",
               plugin_, t_.name);
  check(t_.event_wait(t_.user_data, index, event, stream), "event_wait", index);
}

void PluginBackend::synchronize_event(int index, void* event) {
  PLEXUS_CHECK(t_.event_synchronize, ErrorCode::Unsupported,
               "plugin '{}': backend '{}' has no events", plugin_, t_.name);
  check(t_.event_synchronize(t_.user_data, index, event), "event_synchronize", index);
}

void PluginBackend::copy_from_host_on(int index, void* dst, size_t dst_offset, const void* src,
                                      size_t n, void* stream) {
  check(t_.copy_host_to_device(t_.user_data, index, dst, dst_offset, src, n, stream),
        "copy_host_to_device", index);
}

void PluginBackend::copy_to_host_on(int index, void* dst, const void* src, size_t src_offset,
                                    size_t n, void* stream) {
  check(t_.copy_device_to_host(t_.user_data, index, dst, src, src_offset, n, stream),
        "copy_device_to_host", index);
}

void PluginBackend::copy_on_device_on(int index, void* dst, size_t dst_offset, const void* src,
                                      size_t src_offset, size_t n, void* stream) {
  check(t_.copy_device_to_device(t_.user_data, index, dst, dst_offset, src, src_offset, n, stream),
        "copy_device_to_device", index);
}

void PluginBackend::memset_on(int index, void* ptr, size_t offset, int value, size_t n,
                              void* stream) {
  check(t_.memset(t_.user_data, index, ptr, offset, value, n, stream), "memset", index);
}

bool PluginBackend::wants_caching_allocator() const {
  return !(t_.flags & PLEXUS_BACKEND_OWN_MEMORY_POOL);
}

}  // namespace plexus
