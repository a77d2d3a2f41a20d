#include "reference/shape.h"

#include <stdexcept>

namespace plexus::ref {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw std::invalid_argument("cat: no tensors");
  const DType dtype = tensors[0].dtype;
  std::vector<const Tensor*> kept;
  for (const Tensor& t : tensors)
    if (!(t.dim() == 1 && t.sizes[0] == 0)) kept.push_back(&t);
  if (kept.empty()) return Tensor(dtype, {0});
  const Sizes& first = kept[0]->sizes;
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(first.size()));
  Sizes sizes = first;
  sizes[static_cast<size_t>(d)] = 0;
  for (const Tensor* t : kept) {
    if (t->sizes.size() != first.size()) throw std::invalid_argument("cat: dims differ");
    for (size_t k = 0; k < first.size(); ++k)
      if (static_cast<int64_t>(k) != d && t->sizes[k] != first[k])
        throw std::invalid_argument("cat: sizes differ outside dim");
    sizes[static_cast<size_t>(d)] += t->sizes[static_cast<size_t>(d)];
  }
  Tensor out(dtype, sizes);
  // Each output element comes from the tensor whose slice of dim covers it.
  for_each_index(sizes, [&](const Sizes& idx, int64_t flat) {
    Sizes at = idx;
    int64_t pos = idx[static_cast<size_t>(d)];
    for (const Tensor* t : kept) {
      int64_t len = t->sizes[static_cast<size_t>(d)];
      if (pos >= len) {
        pos -= len;
        continue;
      }
      at[static_cast<size_t>(d)] = pos;
      int64_t src = broadcast_index(t->sizes, t->sizes, at);
      if (out.integral())
        out.set_int(flat, t->at_int(src));
      else
        out.set_float(flat, t->at(src));
      break;
    }
  });
  return out;
}

}  // namespace plexus::ref
