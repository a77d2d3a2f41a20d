// mm, bmm and addmm for the numeric dtypes (float16 and bfloat16 accumulate
// in float, float64 in double, integers in unsigned 32 or 64 bits so that
// they wrap like the element type, as the cpu does) with an own tiled GEMM: each 256-thread block
// computes a 64x64 tile of out, 4x4 outputs per thread, staging 16-deep
// slices of A and B through shared memory. Strided operands are read in
// place (any strides, broadcast batches included). This is the HIP path, and
// the CUDA path when cuBLAS is disabled or missing.
#include <algorithm>
#include <string>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr int kTile = 64, kDepth = 16, kThreads = 256, kPer = 4;  // kPer = kTile / 16

// A batch of row x col matrices at (data, batch stride, row stride, col stride).
struct Matrix {
  void* data;  // elements of the op's dtype
  int64_t sb, sr, sc;
};

struct Gemm {
  Matrix a, b, c, self;  // c = beta * self + alpha * (a @ b); self.data null: not read
  int64_t m, n, k;
  double alpha, beta;            // floating dtypes
  uint64_t int_alpha, int_beta;  // integer dtypes: the scalars as the element type, widened
};

// The type T accumulates in.
template <typename T>
using acc_t =
    std::conditional_t<std::is_integral_v<T>,
                       std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>, compute_t<T>>;

template <typename T>
__global__ void gemm_kernel(Gemm g) {
  using C = acc_t<T>;
  __shared__ C as[kDepth][kTile + 4];  // as[k][row]
  __shared__ C bs[kDepth][kTile + 4];  // bs[k][col]
  const int64_t batch = blockIdx.z, row0 = int64_t(blockIdx.y) * kTile,
                col0 = int64_t(blockIdx.x) * kTile;
  const int tx = int(threadIdx.x) % 16, ty = int(threadIdx.x) / 16;
  const T* a = static_cast<const T*>(g.a.data) + batch * g.a.sb;
  const T* b = static_cast<const T*>(g.b.data) + batch * g.b.sb;
  const T* self = static_cast<const T*>(g.self.data);
  T* c = static_cast<T*>(g.c.data);
  C alpha, beta;
  if constexpr (std::is_integral_v<T>)
    alpha = C(g.int_alpha), beta = C(g.int_beta);
  else
    alpha = C(g.alpha), beta = C(g.beta);
  C acc[kPer][kPer] = {};
  for (int64_t k0 = 0; k0 < g.k; k0 += kDepth) {
    for (int i = int(threadIdx.x); i < kTile * kDepth; i += kThreads) {
      int r = i / kDepth, kk = i % kDepth;  // consecutive threads walk k in A's row
      int64_t gr = row0 + r, gk = k0 + kk;
      as[kk][r] = gr < g.m && gk < g.k ? C(a[gr * g.a.sr + gk * g.a.sc]) : C(0);
      int kb = i / kTile, cb = i % kTile;  // and columns in B's row
      int64_t gkb = k0 + kb, gc = col0 + cb;
      bs[kb][cb] = gkb < g.k && gc < g.n ? C(b[gkb * g.b.sr + gc * g.b.sc]) : C(0);
    }
    __syncthreads();
    for (int kk = 0; kk < kDepth; ++kk) {
      C av[kPer], bv[kPer];
      for (int i = 0; i < kPer; ++i) av[i] = as[kk][ty + 16 * i], bv[i] = bs[kk][tx + 16 * i];
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
      int64_t r = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      if (r >= g.m || col >= g.n) continue;
      C v = alpha * acc[i][j];
      if (self) v += beta * C(self[batch * g.self.sb + r * g.self.sr + col * g.self.sc]);
      c[batch * g.c.sb + r * g.c.sr + col * g.c.sc] = T(v);
    }
}

// t as a batch of matrices (2-D: one matrix, batch stride 0).
Matrix matrix_of(const plexus_tensor& t) {
  bool batched = t.ndim == 3;
  return {static_cast<char*>(t.storage) + t.offset * dtype_size(t.dtype),
          batched ? t.strides[0] : 0, t.strides[t.ndim - 2], t.strides[t.ndim - 1]};
}

void run_gemm(const plexus_kernel_call& call, const plexus_tensor& a, const plexus_tensor& b,
              const plexus_tensor& c, const plexus_tensor* self, const sdk::Scalar& alpha,
              const sdk::Scalar& beta) {
  if (c.ndim != a.ndim || c.ndim != b.ndim || c.ndim < 2 || c.ndim > 3)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              std::string(call.op) + ": expected 2-D (mm, addmm) or 3-D (bmm) operands");
  int64_t batch = c.ndim == 3 ? c.sizes[0] : 1;
  Gemm g{matrix_of(a),
         matrix_of(b),
         matrix_of(c),
         {},
         c.sizes[c.ndim - 2],
         c.sizes[c.ndim - 1],
         // alpha 0 drops the product, NaN and inf in it included: no terms to add.
         (alpha.is_floating() ? alpha.to_double() == 0.0 : alpha.to_int() == 0)
             ? 0
             : a.sizes[a.ndim - 1],
         alpha.to_double(),
         beta.to_double(),
         0,
         0};
  if (self) g.self = matrix_of(*self);
  if (g.m == 0 || g.n == 0 || batch == 0) return;
  if (batch > 65535)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + ": more than 65535 batches");
  dim3 grid(unsigned((g.n + kTile - 1) / kTile), unsigned((g.m + kTile - 1) / kTile),
            unsigned(batch));
  visit_numeric(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>)  // sign-extended: wraps back to T in the kernel
      g.int_alpha = uint64_t(alpha.to<T>()), g.int_beta = uint64_t(beta.to<T>());
    auto* kernel = &gemm_kernel<T>;
    PLEXUS_LAUNCH(kernel, grid, kThreads, 0, stream_of(call), g);
  });
  check_launch(call, "gemm_kernel");
}

sdk::Scalar int_scalar(int64_t v) {
  plexus_scalar s{};
  s.kind = PLEXUS_SCALAR_INT;
  s.v.i = v;
  return sdk::Scalar(s);
}

// mm.out / bmm.out(self, mat2, *, out)
void mm_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  run_gemm(call, a.tensor(0), a.tensor(1), a.tensor(2), nullptr, int_scalar(1), int_scalar(0));
}

// addmm.out(self, mat1, mat2, *, beta, alpha, out): self is only read when
// beta is not zero, so NaNs in an ignored self stay out.
void addmm_out(const plexus_kernel_call& call) {
  sdk::Args a(call);
  sdk::Scalar beta = a.scalar(3);
  bool beta_zero = beta.is_floating() ? beta.to_double() == 0.0 : beta.to_int() == 0;
  const plexus_tensor& self = a.tensor(0);
  if (!beta_zero && self.ndim != 2)
    sdk::fail(
        PLEXUS_ERROR_INVALID_ARGUMENT,
        "addmm.out: self must arrive broadcast to out's 2 dims, got " + std::to_string(self.ndim));
  run_gemm(call, a.tensor(1), a.tensor(2), a.tensor(5), beta_zero ? nullptr : &self, a.scalar(4),
           beta);
}

}  // namespace

void register_matmul(GpuBackend& b) {
  b.register_kernel<&mm_out>("mm.out", sdk::kNumericDTypes);
  b.register_kernel<&mm_out>("bmm.out", sdk::kNumericDTypes);
  b.register_kernel<&addmm_out>("addmm.out", sdk::kNumericDTypes);
}

}  // namespace plexus::gpu
