// View ops: new sizes, strides and offset over the same storage.
#include <algorithm>
#include <numeric>

#include "plexus/error.h"
#include "plexus/tensor.h"

namespace plexus {

namespace detail {
ViewHook g_view_hook = nullptr;
HostReadHook g_host_read_hook = nullptr;
GradSetHook g_grad_set_hook = nullptr;
}  // namespace detail

namespace {
// The view; autograd records it (as `name`) when t has autograd state.
Tensor restride(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                const char* name) {
  Tensor v = Tensor::make(t.storage(), t.dtype(), sizes, strides, offset);
  if (t.impl()->autograd && detail::g_view_hook) detail::g_view_hook(t, v, name);
  return v;
}

// Resolves one -1 in `sizes` so the product equals numel.
Shape infer_size(IntArrayRef sizes, int64_t numel, std::string_view op) {
  Shape out(sizes.begin(), sizes.end());
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      PLEXUS_CHECK(infer < 0, ErrorCode::InvalidArgument, "{}: shape {} has more than one -1", op,
                   shape_str(sizes));
      infer = static_cast<int>(i);
    } else {
      PLEXUS_CHECK(out[i] >= 0, ErrorCode::InvalidArgument, "{}: shape {} has a negative size", op,
                   shape_str(sizes));
      PLEXUS_CHECK(!__builtin_mul_overflow(known, out[i], &known), ErrorCode::InvalidArgument,
                   "{}: shape {} overflows int64", op, shape_str(sizes));
    }
  }
  if (infer >= 0) {
    PLEXUS_CHECK(known != 0 && numel % known == 0, ErrorCode::InvalidArgument,
                 "{}: shape {} is invalid for {} elements", op, shape_str(sizes), numel);
    out[infer] = numel / known;
  } else {
    PLEXUS_CHECK(known == numel, ErrorCode::InvalidArgument,
                 "{}: shape {} is invalid for {} elements", op, shape_str(sizes), numel);
  }
  return out;
}

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible:
// each run of merged old dims must be contiguous with itself.
std::optional<Shape> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef shape) {
  Shape out(shape.size());
  // No elements, or one (a 0-d tensor): any shape views them.
  if (checked_numel(sizes) == 0 || sizes.empty()) return contiguous_strides(shape);
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}
}  // namespace

Tensor Tensor::view(IntArrayRef sizes_in) const {
  Shape shape = infer_size(sizes_in, numel(), "view");
  auto st = view_strides(sizes(), strides(), shape);
  PLEXUS_CHECK(st.has_value(), ErrorCode::InvalidArgument,
               "view: cannot view sizes {} with strides {} as {} without a copy; use reshape()",
               shape_str(sizes()), shape_str(strides()), shape_str(shape));
  return restride(*this, shape, *st, storage_offset(), "ViewBackward");
}

Tensor Tensor::reshape(IntArrayRef sizes_in) const {
  Shape shape = infer_size(sizes_in, numel(), "reshape");
  if (auto st = view_strides(sizes(), strides(), shape))
    return restride(*this, shape, *st, storage_offset(), "ViewBackward");
  return contiguous().view(shape);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  PLEXUS_CHECK(static_cast<int64_t>(dims.size()) == dim(), ErrorCode::InvalidArgument,
               "permute: dims {} must list each of the tensor's {} dims once", shape_str(dims),
               dim());
  Shape s(dims.size()), st(dims.size());
  std::vector<bool> seen(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], dim(), "permute dim", false);
    PLEXUS_CHECK(!seen[d], ErrorCode::InvalidArgument, "permute: dim {} appears twice in {}", d,
                 shape_str(dims));
    seen[d] = true;
    s[i] = sizes()[d];
    st[i] = strides()[d];
  }
  return restride(*this, s, st, storage_offset(), "PermuteBackward");
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (dim() == 0) {
    wrap_dim(d0, 0, "transpose dim0");
    wrap_dim(d1, 0, "transpose dim1");
    return restride(*this, sizes(), strides(), storage_offset(), "TransposeBackward");
  }
  d0 = wrap_dim(d0, dim(), "transpose dim0", false);
  d1 = wrap_dim(d1, dim(), "transpose dim1", false);
  Shape s(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  std::swap(s[d0], s[d1]);
  std::swap(st[d0], st[d1]);
  return restride(*this, s, st, storage_offset(), "TransposeBackward");
}

Tensor Tensor::t() const {
  PLEXUS_CHECK(dim() <= 2, ErrorCode::InvalidArgument,
               "t() expects a tensor with at most 2 dims, got {} dims", dim());
  return dim() < 2 ? transpose(0, 0) : transpose(0, 1);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_in, std::optional<int64_t> end_in,
                     int64_t step) const {
  PLEXUS_CHECK(dim() > 0, ErrorCode::InvalidArgument, "slice: cannot slice a 0-d tensor");
  d = wrap_dim(d, dim(), "slice dim", false);
  PLEXUS_CHECK(step > 0, ErrorCode::InvalidArgument, "slice: step must be positive, got {}", step);
  int64_t n = sizes()[d];
  auto clampi = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t start = clampi(start_in.value_or(0));
  int64_t end = std::max(start, clampi(end_in.value_or(n)));
  Shape s(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  s[d] = (end - start + step - 1) / step;
  st[d] = strides()[d] * step;
  return restride(*this, s, st, storage_offset() + (s[d] > 0 ? start * strides()[d] : 0), "SliceBackward");
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  PLEXUS_CHECK(dim() > 0, ErrorCode::InvalidArgument, "select: cannot select from a 0-d tensor");
  d = wrap_dim(d, dim(), "select dim", false);
  int64_t n = sizes()[d];
  PLEXUS_CHECK(index >= -n && index < n, ErrorCode::InvalidArgument,
               "select: index {} is out of range for dim {} of size {}", index, d, n);
  if (index < 0) index += n;
  Shape s(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return restride(*this, s, st, storage_offset() + index * strides()[d], "SelectBackward");
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  PLEXUS_CHECK(dim() > 0, ErrorCode::InvalidArgument, "narrow: cannot narrow a 0-d tensor");
  d = wrap_dim(d, dim(), "narrow dim", false);
  int64_t n = sizes()[d];
  if (start < 0) start += n;
  PLEXUS_CHECK(start >= 0 && length >= 0 && start <= n && length <= n - start,
               ErrorCode::InvalidArgument,
               "narrow: start {} and length {} do not fit dim {} of size {}", start, length, d, n);
  return slice(d, start, start + length);
}

Tensor Tensor::expand(IntArrayRef target) const {
  PLEXUS_CHECK(static_cast<int64_t>(target.size()) >= dim(), ErrorCode::InvalidArgument,
               "expand: target {} has fewer dims than the tensor's sizes {}", shape_str(target),
               shape_str(sizes()));
  size_t lead = target.size() - sizes().size();
  Shape s(target.size()), st(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    if (i < lead) {
      PLEXUS_CHECK(target[i] >= 0, ErrorCode::InvalidArgument,
                   "expand: new leading dim {} must have a non-negative size in {}", i,
                   shape_str(target));
      s[i] = target[i];
      st[i] = 0;
      continue;
    }
    int64_t have = sizes()[i - lead];
    int64_t want = target[i] == -1 ? have : target[i];
    PLEXUS_CHECK(want == have || have == 1, ErrorCode::InvalidArgument,
                 "expand: cannot expand sizes {} to {}: dim {} has size {}, expected {} or 1",
                 shape_str(sizes()), shape_str(target), i, have, want);
    PLEXUS_CHECK(want >= 0, ErrorCode::InvalidArgument, "expand: negative size in {}",
                 shape_str(target));
    s[i] = want;
    st[i] = want == have ? strides()[i - lead] : 0;
  }
  return restride(*this, s, st, storage_offset(), "ExpandBackward");
}

Tensor Tensor::squeeze() const {
  Shape s, st;
  for (int64_t i = 0; i < dim(); ++i)
    if (sizes()[i] != 1) {
      s.push_back(sizes()[i]);
      st.push_back(strides()[i]);
    }
  return restride(*this, s, st, storage_offset(), "SqueezeBackward");
}

Tensor Tensor::squeeze(int64_t d) const {
  d = wrap_dim(d, dim(), "squeeze dim");
  if (dim() == 0 || sizes()[d] != 1) return restride(*this, sizes(), strides(), storage_offset(), "SqueezeBackward");
  Shape s(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return restride(*this, s, st, storage_offset(), "SqueezeBackward");
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze dim", false);
  Shape s(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  int64_t new_stride = d < dim() ? sizes()[d] * strides()[d] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  return restride(*this, s, st, storage_offset(), "UnsqueezeBackward");
}

Tensor Tensor::flatten(int64_t start, int64_t end) const {
  if (dim() == 0) return reshape(std::vector<int64_t>{1});
  start = wrap_dim(start, dim(), "flatten start_dim", false);
  end = wrap_dim(end, dim(), "flatten end_dim", false);
  PLEXUS_CHECK(start <= end, ErrorCode::InvalidArgument,
               "flatten: start_dim {} comes after end_dim {}", start, end);
  Shape s;
  for (int64_t i = 0; i < start; ++i) s.push_back(sizes()[i]);
  int64_t m = 1;
  for (int64_t i = start; i <= end; ++i) m *= sizes()[i];
  s.push_back(m);
  for (int64_t i = end + 1; i < dim(); ++i) s.push_back(sizes()[i]);
  return reshape(s);
}

Tensor Tensor::as_strided(IntArrayRef s, IntArrayRef st, std::optional<int64_t> offset) const {
  return restride(*this, s, st, offset.value_or(storage_offset()), "AsStridedBackward");
}

}  // namespace plexus
