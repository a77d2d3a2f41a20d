// PluginBackend: a DeviceBackend that calls a plugin's plexus_backend table.
#pragma once

#include <atomic>
#include <string>

#include "plexus/device_backend.h"
#include "plexus/plugin.h"

namespace plexus {

class PluginBackend final : public DeviceBackend {
 public:
  // Checks the table (size, name, required functions); throws InvalidArgument
  // naming what is missing. The table must outlive this object.
  PluginBackend(const plexus_backend& table, std::string plugin);

  int device_count() override;
  std::string unavailable_reason() override;
  DeviceProperties properties(int index) override;
  void* allocate(int index, size_t nbytes) override;
  void deallocate(int index, void* ptr, size_t nbytes) noexcept override;
  void copy_from_host(int index, void* dst, size_t dst_offset, const void* src,
                      size_t n) override;
  void copy_to_host(int index, void* dst, const void* src, size_t src_offset, size_t n) override;
  void copy_on_device(int index, void* dst, size_t dst_offset, const void* src, size_t src_offset,
                      size_t n) override;
  void synchronize(int index) override;
  bool wants_caching_allocator() const override;
  bool has_streams() const override { return t_.stream_create != nullptr; }
  bool has_events() const override { return t_.event_create != nullptr; }
  // The backend's graph compiler (ABI 1.1), checked whole; null when none.
  const plexus_graph_extension* graph_extension() const { return graph_; }
  // Whether anything was allocated or a stream made on it: without either no
  // work can be queued there, so unloading need not wait for its devices (and
  // need not ask a backend that opens its devices lazily to open them).
  bool used() const { return used_.load(std::memory_order_relaxed); }
  void* create_stream(int index) override;
  void destroy_stream(int index, void* stream) noexcept override;
  void synchronize_stream(int index, void* stream) override;
  void* create_event(int index) override;
  void destroy_event(int index, void* event) noexcept override;
  void record_event(int index, void* event, void* stream) override;
  void wait_event(int index, void* event, void* stream) override;
  void synchronize_event(int index, void* event) override;
  void copy_from_host_on(int index, void* dst, size_t dst_offset, const void* src, size_t n,
                         void* stream) override;
  void copy_to_host_on(int index, void* dst, const void* src, size_t src_offset, size_t n,
                       void* stream) override;
  void copy_on_device_on(int index, void* dst, size_t dst_offset, const void* src,
                         size_t src_offset, size_t n, void* stream) override;
  void memset_on(int index, void* ptr, size_t offset, int value, size_t n, void* stream) override;

 private:
  void check(plexus_status st, const char* what, int index) const;
  const plexus_backend& t_;
  const plexus_graph_extension* graph_ = nullptr;  // from t_.extensions (ABI 1.1)
  std::string plugin_;
  std::atomic<bool> used_{false};
};

}  // namespace plexus
