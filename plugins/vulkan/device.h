// One Vulkan physical device opened for compute: its queue, memory pool,
// pipelines, streams and command batches. Thread-safe: kernels and copies
// arrive from many threads; each stream serializes its own recording, and the
// queue, batch pool and memory have their own locks (always taken after a
// stream's lock, never before).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "memory.h"
#include "pipeline.h"
#include "plexus/plugin.hpp"
#include "stream.h"

namespace plexus::vulkan {

// What a device offers, read once when it is opened.
struct DeviceInfo {
  std::string name;
  std::string vendor;
  int32_t kind = PLEXUS_DEVICE_KIND_GPU;
  uint64_t memory = 0;  // bytes of its largest device-local heap
  uint32_t subgroup_size = 0;
  bool subgroup_arithmetic = false;
  // Compute shaders may shuffle within subgroups whose size is a multiple of 8
  // (shaders/matmul_packed.comp shares values among groups of 8 invocations).
  bool subgroup_shuffle8 = false;
  VkDeviceSize max_allocation = 0;
  // The packed path of launch.cpp: VK_KHR_push_descriptor and uniform texel
  // buffers of R32G32B32A32_UINT; its storage-buffer binding may span at most
  // max_storage_range bytes.
  bool packed = false;
  VkDeviceSize max_storage_range = 0;
  // Descriptors one compute stage may use: storage buffers, and uniform texel
  // buffers (counted as sampled images) (graph.cpp sizes its bindings by them).
  uint32_t max_stage_storage_buffers = 0;
  uint32_t max_stage_texel_buffers = 0;
};

class Device {
 public:
  // Opens the device, the plugin's device `index`; throws (with the reason)
  // when it lacks what the plugin needs. memory_cap > 0 makes its memory that
  // many bytes when the heap is larger (the plugin option max_device_memory).
  Device(VkPhysicalDevice phys, int32_t index, VkDeviceSize memory_cap);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  VkDevice handle() const { return dev_; }

  // Memory (deallocation waits for the work queued so far to retire).
  Allocation* allocate(size_t nbytes);
  void deallocate(Allocation* a);

  // Copies and memset, ordered on `stream` (nullptr: the default stream).
  void memset(void* stream, Allocation* a, size_t offset, uint8_t value, size_t n);
  void copy_from_host(void* stream, Allocation* dst, size_t offset, const void* src, size_t n);
  void copy_to_host(void* stream, void* dst, Allocation* src, size_t offset, size_t n);
  void copy_on_device(void* stream, Allocation* dst, size_t dst_offset, Allocation* src,
                      size_t src_offset, size_t n);

  // Records one compute dispatch on `stream`: the pipeline of `module` with
  // these specialization constants, `push` as its push constants, after the
  // metadata words (copied into the batch's arena; their device address is
  // written into the first 8 bytes of the push constants).
  void dispatch(void* stream, const char* module, std::initializer_list<int32_t> spec, void* push,
                uint32_t push_size, const int32_t* meta, size_t meta_words, uint32_t groups_x,
                uint32_t groups_y = 1, uint32_t groups_z = 1);

  // Records one dispatch of a packed module (one built for the packed
  // pipeline layout; see pipeline.h and shaders/elementwise.glsl) on `stream`: binding 0 is bytes
  // [out_offset, out_offset + out_range) of out's buffer, bindings 1, 2, ... the texel views `in`
  // (at least one; the bindings after them repeat in[0]).
  void dispatch_packed(void* stream, const char* module, std::initializer_list<int32_t> spec,
                       void* push, uint32_t push_size, const Allocation* out,
                       VkDeviceSize out_offset, VkDeviceSize out_range,
                       std::initializer_list<VkBufferView> in, uint32_t groups_x,
                       uint32_t groups_y = 1, uint32_t groups_z = 1);
  // Records one dispatch of a pipeline made outside the module table (a
  // compiled graph's, graph.cpp) on `stream`: with the plain layout and
  // metadata words as dispatch() takes them when `writes` is empty; else with
  // `layout`, a push-descriptor layout, and these descriptor writes.
  void dispatch_pipeline(void* stream, VkPipeline pipeline, void* push, uint32_t push_size,
                         const int32_t* meta, size_t meta_words, uint32_t groups_x);
  void dispatch_pipeline(void* stream, VkPipeline pipeline, VkPipelineLayout layout,
                         const VkWriteDescriptorSet* writes, uint32_t num_writes, const void* push,
                         uint32_t push_size, uint32_t groups_x);
  Pipelines& pipelines() { return *pipelines_; }
  // The whole-block view of a's block in 16-byte texels (`wide`) or 4-byte
  // ones (VK_NULL_HANDLE when there is none).
  VkBufferView texel_view(const Allocation* a, bool wide = true) {
    return memory_.texel_view(a->block, wide);
  }

  // Streams and events.
  Stream* create_stream();
  void destroy_stream(Stream* s);
  void synchronize_stream(void* stream);
  void record_event(Event* e, void* stream);
  void wait_event(Event* e, void* stream);
  void synchronize_event(Event* e);
  // Waits until everything submitted or recorded on every stream is done.
  void synchronize();

 private:
  Stream& stream_of(void* s) { return s ? *static_cast<Stream*>(s) : default_stream_; }
  void create_logical_device(VkPhysicalDevice phys);
  // Whether phys offers what the packed path needs (before the device exists).
  bool packed_supported(VkPhysicalDevice phys, const VkPhysicalDeviceLimits& limits);
  void init_stream(Stream& s);
  // The stream's open batch, ready for one more command (its lock held).
  Batch& record(Stream& s);
  // Binds, pushes and dispatches on the stream's batch (its lock held); the
  // metadata's address goes into push's first 8 bytes.
  void record_dispatch(Stream& s, VkPipeline pipeline, VkPipelineLayout layout,
                       const VkWriteDescriptorSet* writes, uint32_t num_writes, void* push,
                       uint32_t push_size, const int32_t* meta, size_t meta_words, uint32_t gx,
                       uint32_t gy, uint32_t gz);
  void barrier(VkCommandBuffer cb);
  // Submits the open batch, if it holds work (the stream's lock held).
  void submit(Stream& s);
  // Submits when the batch is full (after a command was recorded).
  void maybe_submit(Stream& s);
  void wait_value(VkSemaphore sem, uint64_t value);
  Batch* take_batch();
  // Recycles finished batches and frees memory whose users are all done.
  void retire();

  DeviceInfo info_;
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  uint32_t host_type_ = 0;  // host-visible, coherent memory type for arenas
  std::mutex queue_mu_;
  MemoryPool memory_;
  std::unique_ptr<Pipelines> pipelines_;
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_set_ = nullptr;

  Stream default_stream_;
  std::mutex streams_mu_;
  std::vector<Stream*> streams_;                  // every live stream, default included
  std::vector<std::unique_ptr<Stream>> retired_;  // destroyed streams, kept for their semaphores

  std::mutex batches_mu_;
  std::vector<std::unique_ptr<Batch>> batches_;
  std::vector<Batch*> free_batches_;
  std::vector<Batch*> in_flight_;

  // Deferred frees: an allocation is released once every batch that existed
  // when it was deallocated has retired.
  std::mutex life_mu_;
  uint64_t next_serial_ = 1;
  std::set<uint64_t> live_serials_;
  std::vector<std::pair<Allocation*, uint64_t>> deferred_;
};

}  // namespace plexus::vulkan
