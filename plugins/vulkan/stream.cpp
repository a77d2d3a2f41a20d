// Recording into batches, submitting them, and waiting: the Device's stream,
// event and copy functions.
#include <algorithm>
#include <cstring>

#include "device.h"
#include "errors.h"

namespace plexus::vulkan {
namespace {
// A batch is submitted once it holds this many commands or staged bytes.
constexpr uint32_t kMaxCommands = 256;
constexpr size_t kMaxArenaBytes = size_t{64} << 20;
}  // namespace

void Device::init_stream(Stream& s) {
  VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  ti.initialValue = 0;
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &ti};
  vk_check(vkCreateSemaphore(dev_, &si, nullptr, &s.timeline), "vkCreateSemaphore(timeline)");
}

Batch* Device::take_batch() {
  {
    std::lock_guard<std::mutex> lock(batches_mu_);
    if (!free_batches_.empty()) {
      Batch* b = free_batches_.back();
      free_batches_.pop_back();
      return b;
    }
  }
  auto b = std::make_unique<Batch>();
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pi.queueFamilyIndex = family_;
  vk_check(vkCreateCommandPool(dev_, &pi, nullptr, &b->pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = b->pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkResult r = vkAllocateCommandBuffers(dev_, &ai, &b->cb);
  if (r == VK_SUCCESS) r = vkCreateFence(dev_, &fi, nullptr, &b->fence);
  if (r != VK_SUCCESS) {
    vkDestroyCommandPool(dev_, b->pool, nullptr);
    vk_check(r, "creating a command batch");
  }
  b->arena = std::make_unique<Arena>(dev_, host_type_);
  std::lock_guard<std::mutex> lock(batches_mu_);
  batches_.push_back(std::move(b));
  return batches_.back().get();
}

Batch& Device::record(Stream& s) {
  if (!s.open) s.open = take_batch();
  Batch& b = *s.open;
  if (b.commands == 0) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(b.cb, &bi), "vkBeginCommandBuffer");
    std::lock_guard<std::mutex> lock(life_mu_);
    b.serial = next_serial_++;
    live_serials_.insert(b.serial);
  }
  barrier(b.cb);
  ++b.commands;
  return b;
}

void Device::barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Device::submit(Stream& s) {
  Batch* b = s.open;
  if (!b || b->commands == 0) return;
  s.open = nullptr;
  // Makes the batch's writes visible to host reads after its fence signals.
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(b->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &mb, 0, nullptr, 0, nullptr);
  vk_check(vkEndCommandBuffer(b->cb), "vkEndCommandBuffer");
  std::vector<VkSemaphore> wait_sems;
  std::vector<uint64_t> wait_values;
  for (auto& [sem, v] : s.waits) {
    wait_sems.push_back(sem);
    wait_values.push_back(v);
  }
  std::vector<VkPipelineStageFlags> stages(wait_sems.size(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  uint64_t signal = s.submitted + 1;
  VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  ts.waitSemaphoreValueCount = uint32_t(wait_values.size());
  ts.pWaitSemaphoreValues = wait_values.data();
  ts.signalSemaphoreValueCount = 1;
  ts.pSignalSemaphoreValues = &signal;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ts};
  si.waitSemaphoreCount = uint32_t(wait_sems.size());
  si.pWaitSemaphores = wait_sems.data();
  si.pWaitDstStageMask = stages.data();
  si.commandBufferCount = 1;
  si.pCommandBuffers = &b->cb;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &s.timeline;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    vk_check(vkQueueSubmit(queue_, 1, &si, b->fence), "vkQueueSubmit");
  }
  s.submitted = signal;
  s.waits.clear();
  std::lock_guard<std::mutex> lock(batches_mu_);
  in_flight_.push_back(b);
}

void Device::maybe_submit(Stream& s) {
  if (s.open && (s.open->commands >= kMaxCommands || s.open->arena->used() >= kMaxArenaBytes))
    submit(s);
}

void Device::wait_value(VkSemaphore sem, uint64_t value) {
  if (!sem || value == 0) return;
  VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wi.semaphoreCount = 1;
  wi.pSemaphores = &sem;
  wi.pValues = &value;
  vk_check(vkWaitSemaphores(dev_, &wi, UINT64_MAX), "vkWaitSemaphores");
  retire();
}

void Device::retire() {
  std::vector<Batch*> done;
  {
    std::lock_guard<std::mutex> lock(batches_mu_);
    auto keep = std::partition(in_flight_.begin(), in_flight_.end(), [&](Batch* b) {
      return vkGetFenceStatus(dev_, b->fence) != VK_SUCCESS;
    });
    done.assign(keep, in_flight_.end());
    in_flight_.erase(keep, in_flight_.end());
  }
  if (done.empty()) return;
  std::vector<Allocation*> release;
  {
    std::lock_guard<std::mutex> lock(life_mu_);
    for (Batch* b : done) live_serials_.erase(b->serial);
    uint64_t oldest = live_serials_.empty() ? UINT64_MAX : *live_serials_.begin();
    auto keep = std::partition(deferred_.begin(), deferred_.end(),
                               [oldest](const auto& d) { return d.second >= oldest; });
    for (auto it = keep; it != deferred_.end(); ++it) release.push_back(it->first);
    deferred_.erase(keep, deferred_.end());
  }
  for (Allocation* a : release) memory_.release(a);
  for (Batch* b : done) {
    vkResetFences(dev_, 1, &b->fence);
    vkResetCommandPool(dev_, b->pool, 0);
    b->arena->reset();
    b->serial = 0;
    b->commands = 0;
  }
  std::lock_guard<std::mutex> lock(batches_mu_);
  free_batches_.insert(free_batches_.end(), done.begin(), done.end());
}

// ---- streams and events ---------------------------------------------------

Stream* Device::create_stream() {
  auto s = std::make_unique<Stream>();
  init_stream(*s);
  std::lock_guard<std::mutex> lock(streams_mu_);
  streams_.push_back(s.get());
  return s.release();
}

void Device::destroy_stream(Stream* s) {
  synchronize_stream(s);
  std::lock_guard<std::mutex> lock(streams_mu_);
  streams_.erase(std::find(streams_.begin(), streams_.end(), s));
  retired_.emplace_back(s);  // events recorded on it may still name its semaphore
}

void Device::synchronize_stream(void* stream) {
  Stream& s = stream_of(stream);
  uint64_t value;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    submit(s);
    value = s.submitted;
  }
  wait_value(s.timeline, value);
}

void Device::record_event(Event* e, void* stream) {
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  submit(s);
  std::lock_guard<std::mutex> elock(e->mu);
  e->semaphore = s.timeline;
  e->value = s.submitted;
}

void Device::wait_event(Event* e, void* stream) {
  VkSemaphore sem;
  uint64_t value;
  {
    std::lock_guard<std::mutex> elock(e->mu);
    sem = e->semaphore;
    value = e->value;
  }
  if (!sem || value == 0) return;
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  if (sem == s.timeline) return;  // a stream is ordered with itself
  submit(s);                      // work recorded before the wait need not wait
  s.waits.emplace_back(sem, value);
}

void Device::synchronize_event(Event* e) {
  VkSemaphore sem;
  uint64_t value;
  {
    std::lock_guard<std::mutex> elock(e->mu);
    sem = e->semaphore;
    value = e->value;
  }
  wait_value(sem, value);
}

void Device::synchronize() {
  std::vector<std::pair<VkSemaphore, uint64_t>> waits;
  {
    std::lock_guard<std::mutex> lock(streams_mu_);
    for (Stream* s : streams_) {
      std::lock_guard<std::mutex> slock(s->mu);
      submit(*s);
      waits.emplace_back(s->timeline, s->submitted);
    }
  }
  for (auto& [sem, v] : waits) wait_value(sem, v);
  retire();
}

// ---- copies ----------------------------------------------------------------

void Device::memset(void* stream, Allocation* a, size_t offset, uint8_t value, size_t n) {
  if (n == 0) return;
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  Batch& b = record(s);
  // vkCmdFillBuffer writes whole aligned words; the unaligned ends are copied
  // from staged bytes.
  size_t head = std::min(n, (4 - offset % 4) % 4);
  size_t body = (n - head) / 4 * 4, tail = n - head - body;
  if (body) {
    uint32_t word = uint32_t(value) * 0x01010101u;
    vkCmdFillBuffer(b.cb, a->buffer, a->offset + offset + head, body, word);
  }
  if (head + tail) {
    ArenaSlice st = b.arena->allocate(4);
    std::memset(st.host, value, 4);
    VkBufferCopy regions[2];
    uint32_t count = 0;
    if (head) regions[count++] = {st.offset, a->offset + offset, head};
    if (tail) regions[count++] = {st.offset, a->offset + offset + head + body, tail};
    vkCmdCopyBuffer(b.cb, st.buffer, a->buffer, count, regions);
  }
  maybe_submit(s);
}

void Device::copy_from_host(void* stream, Allocation* dst, size_t offset, const void* src,
                            size_t n) {
  if (n == 0) return;
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  Batch& b = record(s);
  ArenaSlice st = b.arena->allocate(n);
  std::memcpy(st.host, src, n);
  VkBufferCopy region{st.offset, dst->offset + offset, n};
  vkCmdCopyBuffer(b.cb, st.buffer, dst->buffer, 1, &region);
  maybe_submit(s);
}

void Device::copy_to_host(void* stream, void* dst, Allocation* src, size_t offset, size_t n) {
  if (n == 0) return;
  Stream& s = stream_of(stream);
  uint64_t value;
  RawBuffer staging;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!src->mapped) {  // device memory the host cannot see: read through a staging buffer
      staging = create_raw_buffer(dev_, n, host_type_, true);
      Batch& b = record(s);
      VkBufferCopy region{src->offset + offset, 0, n};
      vkCmdCopyBuffer(b.cb, src->buffer, staging.buffer, 1, &region);
    }
    submit(s);
    value = s.submitted;
  }
  try {
    wait_value(s.timeline, value);
  } catch (...) {
    destroy_raw_buffer(dev_, staging);
    throw;
  }
  if (staging.mapped) {
    std::memcpy(dst, staging.mapped, n);
    destroy_raw_buffer(dev_, staging);
  } else {
    std::memcpy(dst, src->mapped + offset, n);
  }
}

void Device::copy_on_device(void* stream, Allocation* dst, size_t dst_offset, Allocation* src,
                            size_t src_offset, size_t n) {
  if (n == 0) return;
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  Batch& b = record(s);
  VkBufferCopy region{src->offset + src_offset, dst->offset + dst_offset, n};
  vkCmdCopyBuffer(b.cb, src->buffer, dst->buffer, 1, &region);
  maybe_submit(s);
}

// ---- kernels ---------------------------------------------------------------

void Device::record_dispatch(Stream& s, VkPipeline pipeline, VkPipelineLayout layout,
                             const VkWriteDescriptorSet* writes, uint32_t num_writes, void* push,
                             uint32_t push_size, const int32_t* meta, size_t meta_words,
                             uint32_t gx, uint32_t gy, uint32_t gz) {
  Batch& b = record(s);
  if (meta_words) {
    ArenaSlice m = b.arena->allocate(meta_words * sizeof(int32_t));
    std::memcpy(m.host, meta, meta_words * sizeof(int32_t));
    std::memcpy(push, &m.address, sizeof(m.address));
  }
  vkCmdBindPipeline(b.cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  if (num_writes)
    push_descriptor_set_(b.cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, num_writes, writes);
  vkCmdPushConstants(b.cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
  vkCmdDispatch(b.cb, gx, gy, gz);
  maybe_submit(s);
}

void Device::dispatch(void* stream, const char* module, std::initializer_list<int32_t> spec,
                      void* push, uint32_t push_size, const int32_t* meta, size_t meta_words,
                      uint32_t gx, uint32_t gy, uint32_t gz) {
  if (gx == 0 || gy == 0 || gz == 0) return;
  VkPipeline pipeline = pipelines_->get(module, spec);
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  record_dispatch(s, pipeline, pipelines_->layout(), nullptr, 0, push, push_size, meta, meta_words,
                  gx, gy, gz);
}

void Device::dispatch_pipeline(void* stream, VkPipeline pipeline, void* push, uint32_t push_size,
                               const int32_t* meta, size_t meta_words, uint32_t gx) {
  if (gx == 0) return;
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  record_dispatch(s, pipeline, pipelines_->layout(), nullptr, 0, push, push_size, meta, meta_words,
                  gx, 1, 1);
}

void Device::dispatch_pipeline(void* stream, VkPipeline pipeline, VkPipelineLayout layout,
                               const VkWriteDescriptorSet* writes, uint32_t num_writes,
                               const void* push, uint32_t push_size, uint32_t gx) {
  if (gx == 0) return;
  if (!push_descriptor_set_)
    sdk::fail(PLEXUS_ERROR_INTERNAL, "vulkan: descriptor writes without push descriptors");
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  record_dispatch(s, pipeline, layout, writes, num_writes, const_cast<void*>(push), push_size,
                  nullptr, 0, gx, 1, 1);
}

void Device::dispatch_packed(void* stream, const char* module, std::initializer_list<int32_t> spec,
                             void* push, uint32_t push_size, const Allocation* out,
                             VkDeviceSize out_offset, VkDeviceSize out_range,
                             std::initializer_list<VkBufferView> in, uint32_t gx, uint32_t gy,
                             uint32_t gz) {
  if (gx == 0 || gy == 0 || gz == 0) return;
  VkPipeline pipeline = pipelines_->get(module, spec, true);
  VkDescriptorBufferInfo out_info{out->buffer, out->offset + out_offset, out_range};
  VkBufferView views[Pipelines::kPackedBindings - 1];
  for (uint32_t i = 0; i + 1 < Pipelines::kPackedBindings; ++i) {
    views[i] = i < in.size() ? in.begin()[i] : VK_NULL_HANDLE;
    if (!views[i]) views[i] = *in.begin();
  }
  VkWriteDescriptorSet w[Pipelines::kPackedBindings];
  for (uint32_t i = 0; i < Pipelines::kPackedBindings; ++i) {
    w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w[i].dstBinding = i;
    w[i].descriptorCount = 1;
    if (i == 0) {
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &out_info;
    } else {
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      w[i].pTexelBufferView = &views[i - 1];
    }
  }
  Stream& s = stream_of(stream);
  std::lock_guard<std::mutex> lock(s.mu);
  record_dispatch(s, pipeline, pipelines_->packed_layout(), w, Pipelines::kPackedBindings, push,
                  push_size, nullptr, 0, gx, gy, gz);
}

}  // namespace plexus::vulkan
