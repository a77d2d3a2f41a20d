#include "plexus/storage.h"

#include "plexus/allocator.h"

namespace plexus {

StorageImpl::StorageImpl(Device device, size_t nbytes)
    : data_(nullptr), nbytes_(nbytes), device_(device), allocator_(&allocator_for(device)) {
  data_ = allocator_->allocate(nbytes);
}

StorageImpl::StorageImpl(Device device, void* data, size_t nbytes,
                         std::function<void(void*)> deleter)
    : data_(data),
      nbytes_(nbytes),
      device_(device),
      allocator_(nullptr),
      deleter_(std::move(deleter)) {}

StorageImpl::~StorageImpl() {
  if (allocator_)
    allocator_->deallocate(data_, nbytes_);
  else if (deleter_)
    deleter_(data_);
}

}  // namespace plexus
