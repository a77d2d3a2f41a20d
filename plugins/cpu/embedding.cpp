// embedding: rows of weight picked by int32 or int64 indices, every index
// checked first.
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"
#include "rows.h"

namespace plexus::cpu {
namespace {

// "[i, j, ...]" for the row-major position `linear` of a tensor's elements.
std::string index_str(const plexus_tensor& t, int64_t linear) {
  std::vector<int64_t> idx(static_cast<size_t>(t.ndim));
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    idx[d] = linear % t.sizes[d];
    linear /= t.sizes[d];
  }
  std::string s = "[";
  for (int32_t d = 0; d < t.ndim; ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

// Throws INVALID_ARGUMENT naming the first index outside [0, num).
template <typename I>
void check_indices(const plexus_tensor& indices, int64_t num) {
  int64_t position = 0, bad = -1, value = 0;
  sdk::for_each(sdk::TensorView<const I>(indices), [&](const I& v) {
    if (bad < 0 && (v < 0 || static_cast<int64_t>(v) >= num)) {
      bad = position;
      value = v;
    }
    ++position;
  });
  if (bad >= 0)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: indices" + index_str(indices, bad) + " = " + std::to_string(value) +
                  " is out of range for weight with " + std::to_string(num) +
                  " rows (expected 0 <= index < " + std::to_string(num) + ")");
}

template <typename T, typename I>
void embedding(const plexus_tensor& weight, const plexus_tensor& indices,
               const plexus_tensor& out) {
  sdk::TensorView<const T> w(weight);
  sdk::TensorView<const I> idx(indices);
  sdk::TensorView<T> o(out);
  int64_t dim = weight.sizes[1], ws0 = weight.strides[0], ws1 = weight.strides[1];
  int64_t os1 = out.strides[out.ndim - 1];
  RowIndex rows;  // the dims of indices, which lead out's
  for (int32_t d = 0; d < indices.ndim; ++d)
    rows.push(indices.sizes[d], indices.strides[d], out.strides[d]);
  if (rows.count == 0 || dim == 0) return;
  bool dense = ws1 == 1 && os1 == 1;
  parallel_for(rows.count, dim, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t io, oo;
      rows.offsets(r, io, oo);
      const T* src = w.data() + static_cast<int64_t>(idx.data()[io]) * ws0;
      T* dst = o.data() + oo;
      if (dense)
        std::memcpy(static_cast<void*>(dst), src, static_cast<size_t>(dim) * sizeof(T));
      else
        for (int64_t j = 0; j < dim; ++j) dst[j * os1] = src[j * ws1];
    }
  });
}

// embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, out);
// padding_idx and the flags only matter for gradients.
void embedding_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& weight = a.tensor(0);
  const plexus_tensor& indices = a.tensor(1);
  const plexus_tensor& out = a.tensor(5);
  if (weight.ndim != 2 || out.ndim != indices.ndim + 1)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "embedding: expected a 2-D weight and out of indices' dims plus one");
  check_dims(out, call.op);
  auto run = [&](auto index_tag) {
    using I = typename decltype(index_tag)::type;
    check_indices<I>(indices, weight.sizes[0]);
    sdk::visit_dtype(weight.dtype, [&](auto tag) {
      embedding<typename decltype(tag)::type, I>(weight, indices, out);
    });
  };
  if (indices.dtype == PLEXUS_DTYPE_I64)
    run(sdk::DTypeTag<int64_t>{});
  else if (indices.dtype == PLEXUS_DTYPE_I32)
    run(sdk::DTypeTag<int32_t>{});
  else
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string("embedding: indices must be int32 or "
                                                         "int64, got ") +
                                                 sdk::dtype_name(indices.dtype));
}

}  // namespace

void register_embedding(CpuBackend& b) {
  b.register_kernel<&embedding_out>("embedding.out", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
