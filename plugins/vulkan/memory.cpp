// The device memory pool: blocks, first-fit sub-allocation, coalescing, texel views.
#include "memory.h"

#include <algorithm>
#include <string>

#include "errors.h"

namespace plexus::vulkan {

void MemoryPool::init(VkDevice dev, uint32_t type, bool mappable, VkDeviceSize limit,
                      VkDeviceSize capacity, std::string name) {
  dev_ = dev;
  type_ = type;
  mappable_ = mappable;
  limit_ = std::min(limit, capacity);
  capacity_ = capacity;
  name_ = std::move(name);
}

MemoryPool::~MemoryPool() {
  destroy();
}

void MemoryPool::destroy() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& b : blocks_) destroy_block(*b);
  blocks_.clear();
}

void MemoryPool::destroy_block(Block& b) {
  reserved_ -= b.raw.size;
  for (VkBufferView* v : {&b.texel_view, &b.texel_view32}) {
    if (*v) vkDestroyBufferView(dev_, *v, nullptr);
    *v = VK_NULL_HANDLE;
  }
  destroy_raw_buffer(dev_, b.raw);
}

VkBufferView MemoryPool::texel_view(Block* b, bool wide) {
  std::lock_guard<std::mutex> lock(mu_);
  VkBufferView& view = wide ? b->texel_view : b->texel_view32;
  const VkDeviceSize texel = wide ? 16 : 4;
  if (view || b->raw.size / texel > max_texels_) return view;
  VkBufferViewCreateInfo vi{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  vi.buffer = b->raw.buffer;
  vi.format = wide ? VK_FORMAT_R32G32B32A32_UINT : VK_FORMAT_R32_UINT;
  vi.offset = 0;
  vi.range = b->raw.size / texel * texel;
  vk_check(vkCreateBufferView(dev_, &vi, nullptr, &view), "vkCreateBufferView");
  return view;
}

Block* MemoryPool::add_block(VkDeviceSize size) {
  auto b = std::make_unique<Block>();
  b->raw = create_raw_buffer(dev_, size, type_, mappable_);
  reserved_ += size;
  b->free[0] = size;
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

VkDeviceSize MemoryPool::release_empty_blocks() {
  VkDeviceSize released = 0;
  for (auto it = blocks_.begin(); it != blocks_.end();) {
    Block& b = **it;
    const bool empty = !b.dedicated && b.free.size() == 1 && b.free.begin()->first == 0 &&
                       b.free.begin()->second == b.raw.size;
    if (!empty) {
      ++it;
      continue;
    }
    released += b.raw.size;
    destroy_block(b);
    it = blocks_.erase(it);
  }
  return released;
}

Block* MemoryPool::add_block_or_trim(VkDeviceSize size, size_t asked) {
  if (reserved_ + size <= capacity_) {
    try {
      return add_block(size);
    } catch (const sdk::Error& e) {
      if (e.status() != PLEXUS_ERROR_OUT_OF_MEMORY) throw;
    }
  }
  const VkDeviceSize released = release_empty_blocks();
  std::string why;
  if (reserved_ + size <= capacity_) {
    try {
      return add_block(size);
    } catch (const sdk::Error& e) {
      if (e.status() != PLEXUS_ERROR_OUT_OF_MEMORY) throw;
      why = e.what();
    }
  } else {
    why = fmt::format("a block of {} bytes would pass the device's {} bytes", size, capacity_);
  }
  sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY,
            "{}: out of device memory allocating {} bytes: {} bytes are in use by tensors, {} "
            "reserved in blocks; {} bytes of empty blocks were given back to the driver and the "
            "allocation retried: {}",
            name_, asked, used_, reserved_, released, why);
}

Allocation* MemoryPool::allocate(size_t nbytes) {
  VkDeviceSize n = (VkDeviceSize(nbytes) + kAlignment - 1) / kAlignment * kAlignment;
  if (nbytes == 0 || n > limit_)
    sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY,
              "vulkan: cannot allocate {} bytes: one allocation may have at most {} bytes", nbytes,
              limit_);
  std::lock_guard<std::mutex> lock(mu_);
  Block* block = nullptr;
  VkDeviceSize offset = 0;
  if (n > kBlockSize / 4) {
    block = add_block_or_trim(n, nbytes);  // large: a block of its own
    block->dedicated = true;
  } else {
    for (auto& b : blocks_) {  // first fit
      if (b->dedicated) continue;
      for (auto& [off, size] : b->free)
        if (size >= n) {
          block = b.get();
          offset = off;
          break;
        }
      if (block) break;
    }
    if (!block) block = add_block_or_trim(std::min(kBlockSize, capacity_), nbytes);
  }
  auto it = block->free.find(offset);
  VkDeviceSize size = it->second;
  block->free.erase(it);
  if (size > n) block->free[offset + n] = size - n;
  used_ += n;
  return new Allocation{block,
                        block->raw.buffer,
                        offset,
                        block->raw.address + offset,
                        block->raw.mapped ? block->raw.mapped + offset : nullptr,
                        size_t(n)};
}

void MemoryPool::release(Allocation* a) {
  std::lock_guard<std::mutex> lock(mu_);
  used_ -= a->size;
  Block* b = a->block;
  if (b->dedicated) {
    destroy_block(*b);
    blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(),
                               [b](const std::unique_ptr<Block>& p) { return p.get() == b; }));
  } else {
    VkDeviceSize off = a->offset, size = a->size;
    auto next = b->free.lower_bound(off);
    if (next != b->free.end() && off + size == next->first) {  // merge with the range after
      size += next->second;
      next = b->free.erase(next);
    }
    if (next != b->free.begin()) {  // and with the one before
      auto prev = std::prev(next);
      if (prev->first + prev->second == off) {
        prev->second += size;
        delete a;
        return;
      }
    }
    b->free[off] = size;
  }
  delete a;
}

}  // namespace plexus::vulkan
