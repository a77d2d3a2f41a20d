#include "plexus/tensor.h"

#include <fmt/format.h>

#include <algorithm>

namespace plexus {

namespace {
// Contiguous in row-major order, ignoring strides of size-1 dims.
bool compute_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  // No elements: contiguous whatever the strides (as in PyTorch).
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}
}  // namespace

Tensor Tensor::make(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                    int64_t offset) {
  PLEXUS_CHECK(storage != nullptr, ErrorCode::InvalidArgument, "a tensor needs a storage");
  PLEXUS_CHECK(sizes.size() == strides.size(), ErrorCode::InvalidArgument,
               "sizes {} and strides {} have different lengths", shape_str(sizes),
               shape_str(strides));
  int64_t numel = checked_numel(sizes);
  PLEXUS_CHECK(offset >= 0, ErrorCode::InvalidArgument, "storage offset {} is negative", offset);
  // The last element reached must lie inside the storage.
  int64_t last = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    PLEXUS_CHECK(strides[i] >= 0, ErrorCode::InvalidArgument,
                 "strides {}: negative strides are not supported", shape_str(strides));
    if (numel > 0) {
      int64_t step;
      PLEXUS_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) &&
                       !__builtin_add_overflow(last, step, &last),
                   ErrorCode::InvalidArgument, "sizes {} with strides {} overflow int64",
                   shape_str(sizes), shape_str(strides));
    }
  }
  if (numel > 0) {
    uint64_t need = (static_cast<uint64_t>(last) + 1) * plexus::itemsize(dtype);
    PLEXUS_CHECK(need <= storage->nbytes(), ErrorCode::InvalidArgument,
                 "a view with sizes {}, strides {} and offset {} of {} needs {} bytes, but the "
                 "storage has {}",
                 shape_str(sizes), shape_str(strides), offset, dtype_name(dtype), need,
                 storage->nbytes());
  }
  auto impl = boost::intrusive_ptr<TensorImpl>(new TensorImpl);
  impl->storage = std::move(storage);
  impl->offset = offset;
  impl->sizes.assign(sizes.begin(), sizes.end());
  impl->strides.assign(strides.begin(), strides.end());
  impl->numel = numel;
  impl->dtype = dtype;
  impl->contiguous = compute_contiguous(sizes, strides);
  return Tensor(std::move(impl));
}

int64_t Tensor::size(int64_t d) const {
  return impl_->sizes[wrap_dim(d, dim(), "dim", false)];
}
int64_t Tensor::stride(int64_t d) const {
  return impl_->strides[wrap_dim(d, dim(), "dim", false)];
}

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  return fmt::format("Tensor({}, {}, {})", dtype_name(dtype()), shape_str(sizes()), device().str());
}

}  // namespace plexus
