// The reference's tensor: logical values in row-major order, held exactly.
//
// The conformance suite checks every plugin against this reference and never
// against another plugin. Reference code is written from the op definitions
// (PyTorch's documented semantics), computes floating values in double and
// integer values in int64 with two's-complement wrap-around, and shares no code
// with any plugin. It is naive on purpose: loops over indices, one element at
// a time, so that it is easy to read and hard to get wrong.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plexus/dtype.h"

namespace plexus::ref {

using Sizes = std::vector<int64_t>;

int64_t numel_of(const Sizes& sizes);
// Row-major strides of a contiguous tensor of these sizes.
Sizes contiguous_strides(const Sizes& sizes);
// "[3, 5]"
std::string sizes_str(const Sizes& sizes);

// Logical values of one tensor. Floating dtypes keep their values in `f`
// (exactly: every float16/bfloat16/float32 value is a double). Integral and
// bool dtypes keep them in `i` (exact for all of int64) and mirror them as
// doubles in `f`, so float-only formulas can read any tensor.
struct Tensor {
  DType dtype = DType::F32;
  Sizes sizes;
  std::vector<double> f;
  std::vector<int64_t> i;

  Tensor() = default;
  Tensor(DType dtype, Sizes sizes);  // zero-filled
  int64_t numel() const { return static_cast<int64_t>(f.size()); }
  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  bool integral() const { return !is_floating(dtype); }
  // Sets element k; integral dtypes wrap `v` to the dtype (bool: v != 0).
  void set_int(int64_t k, int64_t v);
  // Sets element k of a floating tensor to v (not rounded: see round_to_dtype).
  void set_float(int64_t k, double v) { f[static_cast<size_t>(k)] = v; }
  double at(int64_t k) const { return f[static_cast<size_t>(k)]; }
  int64_t at_int(int64_t k) const { return i[static_cast<size_t>(k)]; }
};

// v wrapped to an integral dtype as two's complement (bool: v != 0).
int64_t wrap_to(DType dtype, int64_t v);
// v rounded to nearest-even in a floating dtype (overflow gives +-inf).
double round_to(DType dtype, double v);
// A floating tensor's values rounded to its dtype, in place.
void round_to_dtype(Tensor& t);
// Converts values as plexus converts between dtypes: float -> integer truncates
// toward zero (NaN -> 0, out of range saturates), integer -> integer wraps,
// anything -> bool is != 0, -> floating rounds to nearest-even (integers to
// float16/bfloat16 through float32, as plexus does).
Tensor convert(const Tensor& t, DType to);

// Wrapping int64 arithmetic (the result of the operation modulo 2^64).
int64_t wrapping_add(int64_t a, int64_t b);
int64_t wrapping_sub(int64_t a, int64_t b);
int64_t wrapping_mul(int64_t a, int64_t b);

// ---- Index helpers -----------------------------------------------------------

// The shape two shapes broadcast to (numpy rules); throws std::invalid_argument.
Sizes broadcast_shapes(const Sizes& a, const Sizes& b);
// Flat index into a tensor of `sizes` for the element at `index` of a tensor of
// `out_sizes` that it broadcasts to (size-1 and missing leading dims repeat).
int64_t broadcast_index(const Sizes& sizes, const Sizes& out_sizes, const Sizes& index);
// Calls f(index, flat) for every element of `sizes` in row-major order.
void for_each_index(const Sizes& sizes, const std::function<void(const Sizes&, int64_t)>& f);
// Wraps a possibly negative dim into [0, ndim) (0-d tensors accept 0 and -1).
int64_t wrap_dim(int64_t dim, int64_t ndim);

// ---- Elementwise -------------------------------------------------------------

// out[idx] = f(inputs broadcast at idx...), in dtype `out_dtype`. `ff` runs
// when the first input is floating and sees doubles; `fi` runs when it is
// integral or bool and sees int64 (either may be empty when the op does not
// define that case). Results are stored in out_dtype: a floating output keeps
// ff's double unrounded (the comparison rounds it), an integral one wraps.
using FloatFn = std::function<double(const std::vector<double>&)>;
using IntFn = std::function<int64_t(const std::vector<int64_t>&)>;
Tensor map(const std::vector<const Tensor*>& inputs, DType out_dtype, const FloatFn& ff,
           const IntFn& fi);
// Shortcuts for one and two inputs with the output in the first input's dtype.
Tensor map1(const Tensor& a, const std::function<double(double)>& ff,
            const std::function<int64_t(int64_t)>& fi = {});
Tensor map2(const Tensor& a, const Tensor& b, const std::function<double(double, double)>& ff,
            const std::function<int64_t(int64_t, int64_t)>& fi = {});

}  // namespace plexus::ref
