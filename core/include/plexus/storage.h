// Storage: reference-counted bytes on one device.
#pragma once

#include <boost/smart_ptr/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>
#include <atomic>
#include <cstddef>
#include <functional>

#include "plexus/device.h"

namespace plexus {

class Allocator;
class Stream;

class StorageImpl : public boost::intrusive_ref_counter<StorageImpl> {
 public:
  // nbytes from the device's allocator (allocator_for(device)).
  StorageImpl(Device device, size_t nbytes);
  // Memory owned by the caller; `deleter` (may be empty) runs when the last reference goes.
  StorageImpl(Device device, void* data, size_t nbytes, std::function<void(void*)> deleter);
  ~StorageImpl();
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  // Device address of the first byte: a host pointer on cpu, an opaque handle elsewhere.
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Tells the allocator that work on `stream` uses these bytes too, so they
  // are not reused before it is done (plexus/stream.h). A no-op for memory
  // the caller owns (its deleter decides when it may go).
  void record_stream(const Stream& stream) const;

  // Bumped by every op that writes into this storage (in-place and out=
  // calls), with the op's name: autograd checks that tensors it saved for
  // backward were not overwritten since. Views share their storage's count.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  const char* last_writer() const { return last_writer_.load(std::memory_order_relaxed); }
  // Creation order of storages in this process: graph capture tells the
  // storages a captured call made (serial >= the capture's start) from older ones.
  uint64_t serial() const { return serial_; }
  static uint64_t next_serial();
  void bump_version(const char* op) {
    last_writer_.store(op, std::memory_order_relaxed);
    version_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> version_{0};
  std::atomic<const char*> last_writer_{nullptr};
  uint64_t serial_;
  void* data_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_;  // null for external memory
  std::function<void(void*)> deleter_;
};

using Storage = boost::intrusive_ptr<StorageImpl>;

}  // namespace plexus
