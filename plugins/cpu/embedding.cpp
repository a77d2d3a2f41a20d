// embedding: rows of weight picked by int32 or int64 indices, every index
// checked first. embedding_backward: the scatter-add of gradient rows into
// the rows the indices picked. index_select: slices along a dim, gathered.
#include <cstring>
#include <string>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "plexus/sdk/op_args.hpp"
#include "rows.h"

namespace plexus::cpu {
namespace {

// Throws INVALID_ARGUMENT naming the first index outside [0, num).
template <typename I>
void check_indices(const plexus_tensor& indices, int64_t num) {
  int64_t value = 0;
  int64_t bad = sdk::first_out_of_range<I>(sdk::TensorView<const I>(indices), num, &value);
  if (bad >= 0)
    sdk::fail_index_out_of_range("indices", indices, bad, value, num,
                                 "weight with " + std::to_string(num) + " rows");
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
  sdk::check_embedding(weight, indices, out);
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
  else
    run(sdk::DTypeTag<int32_t>{});
}

// The weight's gradient [num, dim]: each position's row of grad added into
// the row its index picked, in C (float for float16/bfloat16), then written
// once. Threads split the columns, so no two write the same element.
template <typename T, typename I>
void embedding_backward(const plexus_tensor& grad, const plexus_tensor& indices, int64_t padding,
                        bool by_freq, const plexus_tensor& out) {
  using C = sdk::compute_type_t<T>;
  sdk::TensorView<const T> g(grad);
  sdk::TensorView<const I> idx(indices);
  sdk::TensorView<T> o(out);
  const int64_t num = out.sizes[0], dim = out.sizes[1];
  const int64_t gs = grad.strides[grad.ndim - 1];
  RowIndex rows;  // the dims of indices, which lead grad's
  for (int32_t d = 0; d < indices.ndim; ++d)
    rows.push(indices.sizes[d], indices.strides[d], grad.strides[d]);
  if (num == 0 || dim == 0) return;
  // Where each position's index and gradient row are.
  std::vector<int64_t> row_of(static_cast<size_t>(rows.count)), grad_at(row_of.size());
  std::vector<C> count(by_freq ? static_cast<size_t>(num) : 0, C(0));
  for (int64_t p = 0; p < rows.count; ++p) {
    int64_t io, go;
    rows.offsets(p, io, go);
    row_of[p] = static_cast<int64_t>(idx.data()[io]);
    grad_at[p] = go;
    if (by_freq) count[row_of[p]] += C(1);
  }
  std::vector<C> acc(static_cast<size_t>(num * dim), C(0));
  parallel_for(dim, rows.count + num, [&](int64_t b, int64_t e) {
    for (int64_t p = 0; p < rows.count; ++p) {
      const int64_t r = row_of[p];
      if (r == padding) continue;
      const T* src = g.data() + grad_at[p];
      C* dst = acc.data() + r * dim;
      for (int64_t j = b; j < e; ++j) dst[j] += static_cast<C>(src[j * gs]);
    }
    for (int64_t r = 0; r < num; ++r) {
      C* row = acc.data() + r * dim;
      if (by_freq && count[r] > C(1))
        for (int64_t j = b; j < e; ++j) row[j] /= count[r];
      scatter(row + b, e - b, o.data() + r * out.strides[0] + b * out.strides[1], out.strides[1]);
    }
  });
}

// embedding_backward.out(grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq, *, out)
void embedding_backward_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& grad = a.tensor(0);
  const plexus_tensor& indices = a.tensor(1);
  const plexus_tensor& out = a.tensor(5);
  const int64_t padding = a.integer(3);
  const bool by_freq = a.boolean(4);
  sdk::check_embedding_backward(grad, indices, out);
  check_dims(grad, call.op);
  auto run = [&](auto index_tag) {
    using I = typename decltype(index_tag)::type;
    check_indices<I>(indices, out.sizes[0]);
    visit<sdk::kFloatingDTypes>(grad.dtype, call.op, [&](auto tag) {
      embedding_backward<typename decltype(tag)::type, I>(grad, indices, padding, by_freq, out);
    });
  };
  if (indices.dtype == PLEXUS_DTYPE_I64)
    run(sdk::DTypeTag<int64_t>{});
  else
    run(sdk::DTypeTag<int32_t>{});
}

// Throws INVALID_ARGUMENT naming the first index outside [0, n).
template <typename I>
void check_select_indices(const plexus_tensor& index, int64_t n, int64_t dim) {
  int64_t value = 0;
  int64_t bad = sdk::first_out_of_range<I>(sdk::TensorView<const I>(index), n, &value);
  if (bad >= 0)
    sdk::fail_index_out_of_range("index", index, bad, value, n,
                                 "dim " + std::to_string(dim) + " of size " + std::to_string(n));
}

// out's lines along dim take self's lines at index[k]: every line (all other
// dims) in parallel.
template <typename T, typename I>
void index_select(const plexus_tensor& self, int64_t dim, const plexus_tensor& index,
                  const plexus_tensor& out) {
  sdk::TensorView<const T> in(self);
  sdk::TensorView<T> o(out);
  const int64_t m = index.ndim ? index.sizes[0] : 1;
  const int64_t istride = index.ndim ? index.strides[0] : 0;
  const I* ip = sdk::TensorView<const I>(index).data();
  if (self.ndim == 0) {
    if (m == 1) o.data()[0] = in.data()[0];
    return;
  }
  RowIndex lines;
  for (int32_t d = 0; d < self.ndim; ++d)
    if (d != dim) lines.push(self.sizes[d], self.strides[d], out.strides[d]);
  const int64_t ss = self.strides[dim], os = out.strides[dim];
  if (lines.count == 0 || m == 0) return;
  parallel_for(lines.count, m, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t io, oo;
      lines.offsets(r, io, oo);
      for (int64_t k = 0; k < m; ++k)
        o.data()[oo + k * os] = in.data()[io + static_cast<int64_t>(ip[k * istride]) * ss];
    }
  });
}

// index_select.out(self, dim, index, *, out)
void index_select_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const int64_t dim = a.integer(1);
  const plexus_tensor& index = a.tensor(2);
  const plexus_tensor& out = a.tensor(3);
  check_dims(self, call.op);
  const int64_t n = self.ndim ? self.sizes[dim] : 1;
  auto run = [&](auto index_tag) {
    using I = typename decltype(index_tag)::type;
    check_select_indices<I>(index, n, dim);
    sdk::visit_dtype(self.dtype, [&](auto tag) {
      index_select<typename decltype(tag)::type, I>(self, dim, index, out);
    });
  };
  sdk::check_index_dtype(index.dtype, "index");
  if (index.dtype == PLEXUS_DTYPE_I64)
    run(sdk::DTypeTag<int64_t>{});
  else
    run(sdk::DTypeTag<int32_t>{});
}

}  // namespace

void register_embedding(CpuBackend& b) {
  b.register_kernel<&index_select_out>("index_select.out", sdk::kAllDTypes);
  b.register_kernel<&embedding_out>("embedding.out", sdk::kAllDTypes);
  b.register_kernel<&embedding_backward_out>("embedding_backward.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
