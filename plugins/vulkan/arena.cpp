// The per-batch host-visible bump allocator: chunks grown on demand, reset at once.
#include "arena.h"

namespace plexus::vulkan {

Arena::~Arena() {
  for (auto& c : chunks_) destroy_raw_buffer(dev_, c);
}

ArenaSlice Arena::allocate(size_t n) {
  n = (n + 15) / 16 * 16;
  while (current_ < chunks_.size() && top_ + n > chunks_[current_].size) {
    ++current_;
    top_ = 0;
  }
  if (current_ == chunks_.size()) {
    chunks_.push_back(create_raw_buffer(dev_, n > kChunk ? n : kChunk, type_, true));
    top_ = 0;
  }
  RawBuffer& c = chunks_[current_];
  ArenaSlice s{c.mapped + top_, c.buffer, top_, c.address + top_};
  top_ += n;
  used_ += n;
  return s;
}

void Arena::reset() {
  size_t kept = 0, keep = 0;
  for (; keep < chunks_.size() && kept + chunks_[keep].size <= 4 * kChunk; ++keep)
    kept += chunks_[keep].size;
  for (size_t i = keep; i < chunks_.size(); ++i) destroy_raw_buffer(dev_, chunks_[i]);
  chunks_.resize(keep);
  current_ = top_ = used_ = 0;
}

}  // namespace plexus::vulkan
