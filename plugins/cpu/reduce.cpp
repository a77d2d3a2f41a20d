// Reductions: sum, mean, amax, amin over a set of dims, argmax and argmin over
// one dim or all elements.
//
// One engine serves them all. The input's dims are ordered by stride (largest
// first) and merged where memory allows; then either the innermost dim is
// reduced ("row mode": each output folds contiguous rows) or it is kept
// ("column mode": a block of outputs folds one input row at a time into a
// vector of accumulators). Work is split over outputs, or over the reduced
// elements when there are too few outputs to keep every thread busy.
#include <immintrin.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels.h"
#include "parallel.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::cpu {
namespace {

using sdk::BFloat16;
using sdk::Half;

// ---- Elements in their compute type ---------------------------------------

// An element as its compute type (float for Half and BFloat16).
template <typename T>
inline sdk::compute_type_t<T> load(T v) {
  if constexpr (std::is_same_v<T, Half>) {
#ifdef __F16C__
    return _cvtsh_ss(v.bits);
#else
    return static_cast<float>(v);
#endif
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// A result as element type T, rounded once (to nearest even) for Half and
// BFloat16; integers wrap.
template <typename T, typename A>
inline T store(A v) {
  if constexpr (std::is_same_v<T, Half>) {
#ifdef __F16C__
    return Half::from_bits(_cvtss_sh(static_cast<float>(v), _MM_FROUND_TO_NEAREST_INT));
#else
    return Half(static_cast<float>(v));
#endif
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
inline constexpr bool is_float_v = std::is_floating_point_v<sdk::compute_type_t<T>>;

// ---- Folding contiguous runs ----------------------------------------------

// Independent accumulators per row fold: four 256-bit registers' worth, so
// the loop vectorizes and the adds pipeline.
template <typename A>
inline constexpr int kLanes = 128 / sizeof(A) < 8 ? 8 : 128 / sizeof(A);

// Folds n elements p[0], p[s], ... into `init` with f(acc, x), lane-wise, then
// folds the lanes pairwise.
template <typename A, typename T, typename F>
A fold_lanes(const T* p, int64_t n, int64_t s, A init, F f) {
  constexpr int L = kLanes<A>;
  A acc[L];
  for (int l = 0; l < L; ++l) acc[l] = init;
  int64_t i = 0;
  if (s == 1) {
    for (; i + L <= n; i += L)
      for (int l = 0; l < L; ++l) acc[l] = f(acc[l], static_cast<A>(load(p[i + l])));
  } else {
    for (; i + L <= n; i += L)
      for (int l = 0; l < L; ++l) acc[l] = f(acc[l], static_cast<A>(load(p[(i + l) * s])));
  }
  for (; i < n; ++i) acc[i % L] = f(acc[i % L], static_cast<A>(load(p[i * s])));
  for (int w = L / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] = f(acc[l], acc[l + w]);
  return acc[0];
}

// Folds four rows of k elements (at p, p + rs, p + 2 rs, p + 3 rs; element
// stride s) into acc with f: one pass over acc instead of four.
template <typename A, typename T, typename F>
void fold_four_rows(A* acc, const T* p, int64_t k, int64_t s, int64_t rs, F f) {
  const T *p1 = p + rs, *p2 = p + 2 * rs, *p3 = p + 3 * rs;
  auto a = [](T v) { return static_cast<A>(load(v)); };
  if (s == 1) {
    for (int64_t i = 0; i < k; ++i)
      acc[i] = f(f(f(f(acc[i], a(p[i])), a(p1[i])), a(p2[i])), a(p3[i]));
  } else {
    for (int64_t i = 0; i < k; ++i)
      acc[i] = f(f(f(f(acc[i], a(p[i * s])), a(p1[i * s])), a(p2[i * s])), a(p3[i * s]));
  }
}

// Sum of p[0], p[s], ..., p[(n-1)s]: lanes over blocks, blocks added
// pairwise, so the rounding error grows with log(n) rather than n, whatever
// the stride.
template <typename A, typename T>
A pairwise_sum(const T* p, int64_t n, int64_t s) {
  constexpr int64_t kBlock = 4096;
  if (n <= kBlock) return fold_lanes<A>(p, n, s, A(0), [](A a, A x) { return a + x; });
  int64_t half = n / 2 / kLanes<A> * kLanes<A>;
  return pairwise_sum<A>(p, half, s) + pairwise_sum<A>(p + half * s, n - half, s);
}

// ---- The operations -------------------------------------------------------
//
// Each says how to fold elements of T into an accumulator A:
//   identity()              the accumulator of no elements
//   combine(a, b)           a then b, for accumulators of consecutive ranges
//   row(p, n, s, first)     the accumulator of p[0], p[s], ..., p[(n-1)s],
//                           whose first element is element `first` of the
//                           reduced space (n >= 1)
//   columns(acc, p, k, s, r) acc[i] = acc[i] then p[i*s] for i < k, the
//                           elements being in reduced row r
//   kFourRows, columns4(acc, p, k, s, rs)
//                           when true: columns() for rows p, p + rs, p + 2 rs
//                           and p + 3 rs at once
//   finish(a, count)        the result of `count` folded elements

// sum: integers in 64 bits (wrapping, as unsigned), floats in float (Half,
// BFloat16, float) or double.
template <typename T>
struct SumOp {
  using A = std::conditional_t<is_float_v<T>, sdk::compute_type_t<T>, uint64_t>;
  static A identity() { return A(0); }
  static A combine(A a, A b) { return a + b; }
  static A row(const T* p, int64_t n, int64_t s, int64_t) {
    return pairwise_sum<A>(p, n, s);
  }
  static void columns(A* acc, const T* p, int64_t k, int64_t s, int64_t) {
    if (s == 1)
      for (int64_t i = 0; i < k; ++i) acc[i] += static_cast<A>(load(p[i]));
    else
      for (int64_t i = 0; i < k; ++i) acc[i] += static_cast<A>(load(p[i * s]));
  }
  static constexpr bool kFourRows = true;
  static void columns4(A* acc, const T* p, int64_t k, int64_t s, int64_t rs) {
    fold_four_rows(acc, p, k, s, rs, [](A a, A x) { return a + x; });
  }
  static A finish(A a, int64_t) { return a; }
};

// mean: the sum over the count; 0 / 0 is NaN.
template <typename T>
struct MeanOp : SumOp<T> {
  using A = typename SumOp<T>::A;
  static A finish(A a, int64_t count) { return a / static_cast<A>(count); }
};

// amax (IsMax) and amin: NaN wins over every number.
template <typename T, bool IsMax>
struct ExtremeOp {
  using A = sdk::compute_type_t<T>;
  static A identity() {
    if constexpr (std::is_floating_point_v<A>)
      return IsMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else
      return IsMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  static A combine(A a, A x) {
    bool take = IsMax ? x > a : x < a;
    if constexpr (std::is_floating_point_v<A>) take = take | (x != x);
    return take ? x : a;
  }
  static A row(const T* p, int64_t n, int64_t s, int64_t) {
    return fold_lanes<A>(p, n, s, identity(), [](A a, A x) { return combine(a, x); });
  }
  static void columns(A* acc, const T* p, int64_t k, int64_t s, int64_t) {
    if (s == 1)
      for (int64_t i = 0; i < k; ++i) acc[i] = combine(acc[i], load(p[i]));
    else
      for (int64_t i = 0; i < k; ++i) acc[i] = combine(acc[i], load(p[i * s]));
  }
  static constexpr bool kFourRows = true;
  static void columns4(A* acc, const T* p, int64_t k, int64_t s, int64_t rs) {
    fold_four_rows(acc, p, k, s, rs, [](A a, A x) { return combine(a, x); });
  }
  static A finish(A a, int64_t) { return a; }
};

// argmax (IsMax) and argmin: the index in the reduced space of the first
// extreme; the first NaN wins over every number.
template <typename T, bool IsMax>
struct ArgExtremeOp {
  using C = sdk::compute_type_t<T>;
  struct A {
    C v;
    int64_t i;  // -1: no element yet
  };
  // True when x, found after best, replaces it.
  static bool better(C x, C best) {
    bool b = IsMax ? x > best : x < best;
    if constexpr (std::is_floating_point_v<C>) b = b || (x != x && best == best);
    return b;
  }
  static A identity() { return {C{}, -1}; }
  static A combine(A a, A b) { return b.i >= 0 && (a.i < 0 || better(b.v, a.v)) ? b : a; }
  static A row(const T* p, int64_t n, int64_t s, int64_t first) {
    if (s == 1) {  // two vectorized passes: the extreme, then where it first is
      C best = ExtremeOp<T, IsMax>::row(p, n, 1, 0);
      return {best, first + find(p, n, best)};
    }
    A a{load(p[0]), first};
    for (int64_t j = 1; j < n; ++j) {
      C x = load(p[j * s]);
      if (better(x, a.v)) a = {x, first + j};
    }
    return a;
  }
  static void columns(A* acc, const T* p, int64_t k, int64_t s, int64_t r) {
    for (int64_t i = 0; i < k; ++i) {
      C x = load(p[i * s]);
      if (acc[i].i < 0 || better(x, acc[i].v)) acc[i] = {x, r};
    }
  }
  static constexpr bool kFourRows = false;
  static void columns4(A*, const T*, int64_t, int64_t, int64_t) {}
  static int64_t finish(A a, int64_t) { return a.i; }

  // The first j < n with p[j] equal to v (or NaN, for a NaN v); v is there.
  static int64_t find(const T* p, int64_t n, C v) {
    constexpr int L = 32;
    bool nan = false;
    if constexpr (std::is_floating_point_v<C>) nan = v != v;
    int64_t j = 0;
    for (; j + L <= n; j += L) {  // skip whole blocks without a match
      bool hit = false;
      if (nan) {
        for (int l = 0; l < L; ++l) hit |= load(p[j + l]) != load(p[j + l]);
      } else {
        for (int l = 0; l < L; ++l) hit |= load(p[j + l]) == v;
      }
      if (hit) break;
    }
    for (; j < n; ++j) {
      C x = load(p[j]);
      if (nan ? x != x : x == v) return j;
    }
    return n - 1;
  }
};

// ---- Layout ---------------------------------------------------------------

// One dim of a reduction: its size, its stride in the input and in the output
// (0 for a reduced dim).
struct Dim {
  int64_t size, in_stride, out_stride;
  bool reduced;
};

// Size-1 dims dropped, ordered by input stride (largest first, stable),
// neighbours merged where both tensors allow; never empty.
std::vector<Dim> simplify(std::vector<Dim> dims) {
  dims.erase(std::remove_if(dims.begin(), dims.end(), [](const Dim& d) { return d.size == 1; }),
             dims.end());
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return a.in_stride > b.in_stride; });
  std::vector<Dim> out;
  for (const Dim& d : dims) {
    if (!out.empty()) {
      Dim& o = out.back();
      if (o.reduced == d.reduced && o.in_stride == d.in_stride * d.size &&
          o.out_stride == d.out_stride * d.size) {
        o = {o.size * d.size, d.in_stride, d.out_stride, d.reduced};
        continue;
      }
    }
    out.push_back(d);
  }
  if (out.empty()) out.push_back({1, 1, 0, true});
  return out;
}

// Walks a set of dims in row-major order, keeping the offsets of the current
// index in the input (off[0]) and the output (off[1]).
struct Walker {
  int32_t ndim = 0;
  int64_t size[sdk::kMaxIterDims];
  int64_t stride[2][sdk::kMaxIterDims];
  int64_t index[sdk::kMaxIterDims];
  int64_t off[2] = {0, 0};

  // Throws UNSUPPORTED past kMaxIterDims dims (before any parallel region).
  void push(const Dim& d) {
    if (ndim == sdk::kMaxIterDims)
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "more than {} dims after merging", sdk::kMaxIterDims);
    size[ndim] = d.size;
    stride[0][ndim] = d.in_stride;
    stride[1][ndim] = d.out_stride;
    ++ndim;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= size[d];
    return n;
  }
  // Moves to the linear index i.
  void seek(int64_t i) {
    off[0] = off[1] = 0;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      index[d] = i % size[d];
      i /= size[d];
      off[0] += index[d] * stride[0][d];
      off[1] += index[d] * stride[1][d];
    }
  }
  // Moves to the next index (past the last one it wraps to the first).
  void next() {
    for (int32_t d = ndim - 1; d >= 0; --d) {
      off[0] += stride[0][d];
      off[1] += stride[1][d];
      if (++index[d] < size[d]) return;
      off[0] -= stride[0][d] * size[d];
      off[1] -= stride[1][d] * size[d];
      index[d] = 0;
    }
  }
};

// Outputs per column task: the width of the accumulator vector.
constexpr int64_t kColumnBlock = 1024;
// Reduced rows folded into a fresh accumulator vector before it joins the
// total: a two-level sum, for accuracy.
constexpr int64_t kRowBlock = 1024;

// The reduction of `in` over dims into `out`, for an operation Op.
template <typename Op, typename T, typename Out>
class Reduction {
 public:
  using A = typename Op::A;

  // dims: simplified (see simplify()); count: elements folded per output.
  Reduction(const T* in, Out* out, const std::vector<Dim>& dims, int64_t count)
      : in_(in), out_(out), count_(count) {
    const Dim& inner = dims.back();
    rows_ = inner.reduced;
    n_ = inner.size;
    step_ = inner.in_stride;
    out_step_ = inner.out_stride;
    for (size_t d = 0; d + 1 < dims.size(); ++d) (dims[d].reduced ? reduced_ : kept_).push(dims[d]);
    blocks_ = rows_ ? 1 : (n_ + kColumnBlock - 1) / kColumnBlock;
    reduced_count_ = reduced_.numel() * (rows_ ? n_ : 1);
  }

  void run() const {
    int64_t tasks = kept_.numel() * blocks_;
    int64_t width = rows_ ? 1 : std::min(n_, kColumnBlock);
    int64_t nt = omp_get_max_threads();
    // Split each task's reduced space when whole tasks would leave threads
    // idle more than a fifth of the time (e.g. 1 output, or 3 on 2 threads).
    int64_t rounds = (tasks + nt - 1) / nt;
    bool split = nt > 1 && !omp_in_parallel() && reduced_count_ * width > kGrain &&
                 reduced_count_ >= 64 * nt && rounds * nt * 4 > tasks * 5;
    if (split)
      run_split(tasks, nt);
    else
      run_tasks(tasks, width);
  }

 private:
  // Each task folds its whole reduced space; tasks run in parallel.
  void run_tasks(int64_t tasks, int64_t width) const {
    parallel_for(tasks, reduced_count_ * width, [&](int64_t b, int64_t e) {
      Walker kept = kept_, reduced = reduced_;
      kept.seek(b / blocks_);
      A acc[kColumnBlock];
      for (int64_t t = b; t < e; ++t) {
        int64_t block = t % blocks_;
        if (t != b && block == 0) kept.next();
        fold(kept.off[0], block, 0, reduced_count_, acc, reduced);
        write(kept.off[1], block, acc);
      }
    });
  }

  // Tasks one after the other, each with its reduced space split over the
  // threads; the parts are combined in order.
  void run_split(int64_t tasks, int64_t nt) const {
    auto parts = std::make_unique<A[]>(static_cast<size_t>(nt * kColumnBlock));
    Walker kept = kept_;
    int64_t r = reduced_count_;
    for (int64_t t = 0; t < tasks; ++t) {
      int64_t block = t % blocks_;
      if (t != 0 && block == 0) kept.next();
      parallel_for(nt, kGrain, [&](int64_t b, int64_t e) {
        Walker reduced = reduced_;
        for (int64_t c = b; c < e; ++c)
          fold(kept.off[0], block, r * c / nt, r * (c + 1) / nt, &parts[c * kColumnBlock], reduced);
      });
      int64_t width = block_width(block);
      for (int64_t c = 1; c < nt; ++c)
        for (int64_t i = 0; i < width; ++i)
          parts[i] = Op::combine(parts[i], parts[c * kColumnBlock + i]);
      write(kept.off[1], block, parts.get());
    }
  }

  int64_t block_width(int64_t block) const {
    return rows_ ? 1 : std::min(kColumnBlock, n_ - block * kColumnBlock);
  }

  // Folds elements [b, e) of the reduced space of the outputs at input offset
  // `base` (column block `block`) into acc.
  void fold(int64_t base, int64_t block, int64_t b, int64_t e, A* acc, Walker& reduced) const {
    if (rows_) {
      fold_rows(in_ + base, b, e, acc, reduced);
    } else {
      fold_columns(in_ + base + block * kColumnBlock * step_, block_width(block), b, e, acc,
                   reduced);
    }
  }

  void fold_rows(const T* p, int64_t b, int64_t e, A* acc, Walker& reduced) const {
    A a = Op::identity();
    int64_t i = b % n_;
    reduced.seek(b / n_);
    while (b < e) {
      int64_t len = std::min(n_ - i, e - b);
      a = Op::combine(a, Op::row(p + reduced.off[0] + i * step_, len, step_, b));
      b += len;
      i = 0;
      reduced.next();
    }
    acc[0] = a;
  }

  void fold_columns(const T* p, int64_t k, int64_t b, int64_t e, A* acc, Walker& reduced) const {
    std::fill(acc, acc + k, Op::identity());
    A part[kColumnBlock];
    reduced.seek(b);
    for (int64_t r = b; r < e;) {
      int64_t stop = std::min(e, r + kRowBlock);
      std::fill(part, part + k, Op::identity());
      while (r < stop) {
        int32_t last = reduced.ndim - 1;  // four rows at once when they are evenly spaced
        if (Op::kFourRows && last >= 0 && r + 4 <= stop &&
            reduced.index[last] + 4 <= reduced.size[last]) {
          Op::columns4(part, p + reduced.off[0], k, step_, reduced.stride[0][last]);
          for (int j = 0; j < 4; ++j) reduced.next();
          r += 4;
          continue;
        }
        Op::columns(part, p + reduced.off[0], k, step_, r);
        reduced.next();
        ++r;
      }
      for (int64_t i = 0; i < k; ++i) acc[i] = Op::combine(acc[i], part[i]);
    }
  }

  void write(int64_t base, int64_t block, const A* acc) const {
    Out* o = out_ + base;
    if (rows_) {
      *o = store<Out>(Op::finish(acc[0], count_));
      return;
    }
    o += block * kColumnBlock * out_step_;
    int64_t k = block_width(block);
    for (int64_t i = 0; i < k; ++i) o[i * out_step_] = store<Out>(Op::finish(acc[i], count_));
  }

  const T* in_;
  Out* out_;
  int64_t count_;
  bool rows_;         // the innermost dim is reduced
  int64_t n_;         // the innermost dim's size
  int64_t step_;      // its input stride
  int64_t out_step_;  // its output stride (column mode)
  int64_t blocks_;    // column blocks per kept index
  int64_t reduced_count_;
  Walker kept_;     // kept dims but the innermost
  Walker reduced_;  // reduced dims but the innermost
};

// ---- Kernels --------------------------------------------------------------

bool in_list(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The dims of self reduced over `dims` into out (which keeps the reduced dims
// as size 1 when it has as many dims as self).
std::vector<Dim> reduction_dims(const plexus_tensor& self, const plexus_tensor& out,
                                const std::vector<int64_t>& dims) {
  bool keepdim = out.ndim == self.ndim;
  std::vector<Dim> list;
  int32_t od = 0;
  for (int32_t d = 0; d < self.ndim; ++d) {
    bool reduced = in_list(dims, d);
    int64_t os = 0;
    if (!reduced || keepdim) {
      if (!reduced) os = out.strides[od];
      ++od;
    }
    list.push_back({self.sizes[d], self.strides[d], os, reduced});
  }
  return list;
}

int64_t numel(const plexus_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

// Runs Op over self's `dims` (all dims when None) into out.
template <typename Op, typename T, typename Out>
void reduce(const plexus_tensor& self, const plexus_tensor& out, const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int32_t d = 0; d < self.ndim; ++d)
    if (in_list(dims, d)) count *= self.sizes[d];
  if (numel(out) == 0) return;
  sdk::TensorView<Out> o(out);
  if (count == 0) {  // nothing to fold: every output is the identity's result
    Out v = store<Out>(Op::finish(Op::identity(), 0));
    sdk::for_each(o, [v](Out& x) { x = v; });
    return;
  }
  sdk::TensorView<const T> in(self);
  Reduction<Op, T, Out>(in.data(), o.data(), simplify(reduction_dims(self, out, dims)), count)
      .run();
}

// sum.IntList_out(self, dim, keepdim, dtype, out)
void sum_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(4);
  sdk::check_same_dtype(self, out);
  std::vector<int64_t> dims = sdk::reduced_dims(a, 1, self);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "sum: bool arrives as int64");
    else
      reduce<SumOp<T>, T, T>(self, out, dims);
  });
}

// mean.out(self, dim, keepdim, dtype, out)
void mean_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(4);
  sdk::check_same_dtype(self, out);
  std::vector<int64_t> dims = sdk::reduced_dims(a, 1, self);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_v<T>)
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} is not floating", sdk::dtype_name(self.dtype));
    else
      reduce<MeanOp<T>, T, T>(self, out, dims);
  });
}

template <bool IsMax>
// amax.out / amin.out(self, dim, keepdim, out)
void extreme_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(3);
  sdk::check_same_dtype(self, out);
  std::vector<int64_t> dims = sdk::reduced_dims(a, 1, self);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce<ExtremeOp<T, IsMax>, T, T>(self, out, dims);
  });
}

// argmax/argmin over all elements in row-major order (dim None), or one dim.
template <bool IsMax, typename T>
void arg_extreme(const plexus_tensor& self, std::optional<int64_t> dim, const plexus_tensor& out) {
  using Op = ArgExtremeOp<T, IsMax>;
  sdk::TensorView<int64_t> o(out);
  sdk::TensorView<const T> in(self);
  if (in.numel() == 0) return;  // the meta rejects an empty reduced dim
  if (dim) {
    auto dims = simplify(reduction_dims(self, out, {*dim}));
    Reduction<Op, T, int64_t>(in.data(), o.data(), dims, self.sizes[*dim]).run();
    return;
  }
  std::vector<Dim> flat{{in.numel(), 1, 0, true}};
  if (in.is_contiguous()) {
    Reduction<Op, T, int64_t>(in.data(), o.data(), flat, in.numel()).run();
    return;
  }
  std::vector<T> dense(static_cast<size_t>(in.numel()));  // row-major order for the index
  std::vector<int64_t> strides(static_cast<size_t>(self.ndim));
  int64_t stride = 1;
  for (int32_t d = self.ndim - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= self.sizes[d];
  }
  map([](T x) { return x; },
      sdk::TensorView<T>(dense.data(), self.ndim, self.sizes, strides.data()), in);
  Reduction<Op, T, int64_t>(dense.data(), o.data(), flat, in.numel()).run();
}

template <bool IsMax>
void arg_extreme_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  std::optional<int64_t> dim = a.optional_integer(1);
  const plexus_tensor& out = a.tensor(3);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "bool is not supported");
    else
      arg_extreme<IsMax, T>(self, dim, out);
  });
}

}  // namespace

void register_reduce(CpuBackend& b) {
  b.register_kernel<&sum_out>("sum.IntList_out", sdk::kNumericDTypes);
  b.register_kernel<&mean_out>("mean.out", sdk::kFloatingDTypes);
  b.register_kernel<&extreme_out<true>>("amax.out", sdk::kAllDTypes);
  b.register_kernel<&extreme_out<false>>("amin.out", sdk::kAllDTypes);
  b.register_kernel<&arg_extreme_out<true>>("argmax.out", sdk::kNumericDTypes);
  b.register_kernel<&arg_extreme_out<false>>("argmin.out", sdk::kNumericDTypes);
}

}  // namespace plexus::cpu
