// libFuzzer entry point for DLPack import (plexus::from_dlpack, legacy and
// versioned): the input's bytes become a DLManagedTensor(Versioned) whose
// ndim, shape, strides, dtype, device, byte offset, version and flags are
// whatever a producer could send. The data pointer is a static buffer and
// the byte offset stays inside it: that the pointer is valid is the
// producer's promise, which a consumer cannot check. Every other field is
// the consumer's to check. Any input must give a tensor or be refused with a
// plexus::Error; either way the producer's deleter runs exactly once (when
// the tensor dies, for an accepted one). A crash, a sanitizer report (the
// sizes and strides multiplied past int64), another exception or a deleter
// run twice or never is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "plexus/dlpack.h"
#include "plexus/error.h"
#include "plexus/tensor.h"

namespace {

int g_deleted = 0;
alignas(16) unsigned char g_data[256];

// Reads the next n bytes of the input (zeros past its end).
struct Reader {
  const uint8_t* p;
  size_t left;
  template <typename T>
  T next() {
    T v{};
    size_t n = left < sizeof(T) ? left : sizeof(T);
    std::memcpy(&v, p, n);
    p += n;
    left -= n;
    return v;
  }
};

[[noreturn]] void bug(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const uint8_t mode = r.next<uint8_t>();
  const bool versioned = mode & 1, with_strides = mode & 2;
  DLTensor dl{};
  dl.data = g_data;
  dl.ndim = int32_t(int8_t(r.next<uint8_t>())) % 10;  // -9 .. 9
  dl.dtype.code = r.next<uint8_t>() % 8;
  dl.dtype.bits = r.next<uint8_t>();
  dl.dtype.lanes = r.next<uint8_t>() % 3;
  dl.device.device_type = int32_t(r.next<uint8_t>() % 16);
  dl.device.device_id = r.next<int32_t>();
  dl.byte_offset = r.next<uint8_t>() % 64;
  std::vector<int64_t> shape(size_t(dl.ndim > 0 ? dl.ndim : 0)), strides(shape.size());
  for (int64_t& s : shape) s = r.next<int64_t>();
  for (int64_t& s : strides) s = r.next<int64_t>();
  dl.shape = shape.data();
  dl.strides = with_strides ? strides.data() : nullptr;

  g_deleted = 0;
  try {
    plexus::Tensor t;
    if (versioned) {
      auto* m = new DLManagedTensorVersioned{};
      m->version = {r.next<uint8_t>() % 3u, 0};
      m->flags = r.next<uint8_t>();
      m->dl_tensor = dl;
      m->deleter = [](DLManagedTensorVersioned* self) {
        ++g_deleted;
        delete self;
      };
      t = plexus::from_dlpack(m);
    } else {
      auto* m = new DLManagedTensor{};
      m->dl_tensor = dl;
      m->deleter = [](DLManagedTensor* self) {
        ++g_deleted;
        delete self;
      };
      t = plexus::from_dlpack(m);
    }
    if (g_deleted != 0) bug("the deleter ran while the tensor lives");
    if (t.dim() != (dl.ndim > 0 ? dl.ndim : 0)) bug("a tensor of another rank");
    for (int64_t d = 0; d < t.dim(); ++d)
      if (t.size(d) != shape[size_t(d)]) bug("a tensor of another shape");
  } catch (const plexus::Error&) {
  }
  if (g_deleted != 1) bug("the deleter did not run exactly once");
  return 0;
}
