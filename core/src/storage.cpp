#include "plexus/storage.h"

#include "plexus/allocator.h"

namespace plexus {
namespace {
std::atomic<uint64_t> g_next_serial{1};
}  // namespace

uint64_t StorageImpl::next_serial() { return g_next_serial.load(std::memory_order_relaxed); }

StorageImpl::StorageImpl(Device device, size_t nbytes)
    : serial_(g_next_serial.fetch_add(1, std::memory_order_relaxed)),
      data_(nullptr),
      nbytes_(nbytes), device_(device), allocator_(&allocator_for(device)) {
  data_ = allocator_->allocate(nbytes);
}

StorageImpl::StorageImpl(Device device, void* data, size_t nbytes,
                         std::function<void(void*)> deleter)
    : serial_(g_next_serial.fetch_add(1, std::memory_order_relaxed)),
      data_(data),
      nbytes_(nbytes),
      device_(device),
      allocator_(nullptr),
      deleter_(std::move(deleter)) {}

void StorageImpl::record_stream(const Stream& stream) const {
  if (allocator_) allocator_->record_stream(data_, stream);
}

StorageImpl::~StorageImpl() {
  if (allocator_)
    allocator_->deallocate(data_, nbytes_);
  else if (deleter_)
    deleter_(data_);
}

}  // namespace plexus
