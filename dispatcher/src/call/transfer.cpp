#include "call/transfer.h"

#include "plexus/device_backend.h"
#include "plexus/factories.h"
#include "plexus/stream.h"

namespace plexus {

std::pair<size_t, size_t> byte_extent(const Tensor& t) {
  if (t.numel() == 0) return {0, 0};
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return {t.storage_offset() * t.itemsize(), (last + 1) * t.itemsize()};
}

namespace {
// A host tensor viewing `bytes` with t's layout relative to `first`.
Tensor host_view_like(const Tensor& t, Storage bytes, size_t first) {
  return Tensor::make(std::move(bytes), t.dtype(), t.sizes(), t.strides(),
                      t.storage_offset() - static_cast<int64_t>(first / t.itemsize()));
}

}  // namespace

Tensor host_copy_of(const Tensor& t) {
  if (t.device().is_cpu()) return t;
  auto [first, last] = byte_extent(t);
  Storage host(new StorageImpl(Device(), last - first));
  if (last > first)
    device_backend(t.device().type)
        .copy_to_host_on(t.device().index, host->data(), t.storage()->data(), first, last - first,
                         detail::current_stream_handle(t.device()));
  return host_view_like(t, std::move(host), first);
}

void write_from_host(const Tensor& dst, const Tensor& src) {
  if (dst.device().is_cpu()) {
    dst.copy_(src);
    return;
  }
  if (dst.numel() == 0) return;
  DeviceBackend& backend = device_backend(dst.device().type);
  int index = dst.device().index;
  void* stream = detail::current_stream_handle(dst.device());
  if (dst.is_contiguous() && src.is_contiguous() && src.dtype() == dst.dtype()) {
    backend.copy_from_host_on(index, dst.storage()->data(), dst.storage_offset() * dst.itemsize(),
                              src.data_ptr(), dst.nbytes(), stream);
    return;
  }
  // Read the destination's byte range, update it on the host, write it back:
  // correct for any layout and needs no copy kernel on the device.
  Tensor staged = host_copy_of(dst);
  staged.copy_(src);
  auto [first, last] = byte_extent(dst);
  backend.copy_from_host_on(index, dst.storage()->data(), first,
                            static_cast<const char*>(staged.storage()->data()), last - first, stream);
}

void cross_device_copy(const Tensor& dst, const Tensor& src) {
  write_from_host(dst, host_copy_of(src));
}

}  // namespace plexus
