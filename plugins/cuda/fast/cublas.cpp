// cuBLAS for the matmul family: mm.out and bmm.out through cublasGemmEx and
// cublasGemmStridedBatchedEx; addmm.out through cublasLt (D = alpha A B +
// beta C with self as C, or self as a bias epilogue when it is a broadcast
// row), where one call replaces a GEMM plus an elementwise pass.
//
// cuBLAS is column-major; a row-major [n, p] result is the column-major
// [p, n] matrix out^T = mat2^T self^T, so every call swaps its operands. An
// operand takes either memory order (op N or T); anything else (a stride on
// both dims, a strided output), integer dtypes, empty products and a missing
// libcublas go to the own tiled GEMM.
//
// Reductions stay in fp32 for float16 and bfloat16 (cuBLAS's
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, cuBLASLt's reduction
// scheme mask): on an H200 the default split-K summed bfloat16 partial
// products in bfloat16 and a 16x16x16 product was off by 2 ulp
// (plugins/cuda/README.md). alpha = 0 goes to the own GEMM, which ignores
// the product as PyTorch does; cuBLAS multiplies NaN and inf operands by 0.
// So do float16 and bfloat16 addmm calls with a bias row (see addmm).
#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "device.h"
#include "fast/fast.h"
#include "fast/handle_pool.h"
#include "fast/library.h"
#include "fast_path.h"
#include "memory.h"
#include "stream.h"

namespace plexus::gpu {
namespace {

#define PLEXUS_STR2(x) #x
#define PLEXUS_STR(x) PLEXUS_STR2(x)
constexpr const char* kCublas = "libcublas.so." PLEXUS_STR(CUBLAS_VER_MAJOR);
constexpr const char* kCublasLt = "libcublasLt.so." PLEXUS_STR(CUBLAS_VER_MAJOR);

// cuBLAS's recommended workspace for Hopper (32 MiB) also covers older GPUs.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

// The functions used, bound from the libraries.
struct Api {
  Library blas{kCublas, "libcublas.so"};
  Library lt{kCublasLt, "libcublasLt.so"};
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasGemmEx_64) gemm = nullptr;
  decltype(&cublasGemmStridedBatchedEx_64) gemm_batched = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasLtCreate) lt_create = nullptr;
  decltype(&cublasLtDestroy) lt_destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;

  // Binds every function; "" or why cuBLAS cannot be used.
  std::string bind() {
    if (!blas.ok()) return blas.error();
    if (!lt.ok()) return lt.error();
    bool ok = blas.bind(create, "cublasCreate_v2") && blas.bind(destroy, "cublasDestroy_v2") &&
              blas.bind(set_stream, "cublasSetStream_v2") &&
              blas.bind(set_workspace, "cublasSetWorkspace_v2") &&
              blas.bind(set_math_mode, "cublasSetMathMode") &&
              blas.bind(gemm, "cublasGemmEx_64") &&
              blas.bind(gemm_batched, "cublasGemmStridedBatchedEx_64") &&
              blas.bind(status_string, "cublasGetStatusString");
    if (!ok) return blas.error();
    ok = lt.bind(lt_create, "cublasLtCreate") && lt.bind(lt_destroy, "cublasLtDestroy") &&
         lt.bind(desc_create, "cublasLtMatmulDescCreate") &&
         lt.bind(desc_destroy, "cublasLtMatmulDescDestroy") &&
         lt.bind(desc_set, "cublasLtMatmulDescSetAttribute") &&
         lt.bind(layout_create, "cublasLtMatrixLayoutCreate") &&
         lt.bind(layout_destroy, "cublasLtMatrixLayoutDestroy") &&
         lt.bind(pref_create, "cublasLtMatmulPreferenceCreate") &&
         lt.bind(pref_destroy, "cublasLtMatmulPreferenceDestroy") &&
         lt.bind(pref_set, "cublasLtMatmulPreferenceSetAttribute") &&
         lt.bind(heuristic, "cublasLtMatmulAlgoGetHeuristic") && lt.bind(matmul, "cublasLtMatmul");
    return ok ? "" : lt.error();
  }
};

// One cuBLAS and one cuBLASLt handle, bound to a device; a call leases a
// pair, so no two threads use a handle at once.
struct Handles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
};

struct State {
  const plexus_host_api* host = nullptr;
  std::once_flag once;
  Api* api = nullptr;  // null when cuBLAS could not be loaded
  HandlePool<Handles> handles;
  // cuBLASLt's algorithm for each addmm configuration (its heuristics query
  // costs more than a small product): key as built in addmm.
  std::mutex algo_mutex;
  std::map<std::vector<int64_t>, std::optional<cublasLtMatmulAlgo_t>> algos;
};
State* g_state = nullptr;

[[noreturn]] void fail_blas(cublasStatus_t s, const plexus_kernel_call& call, const char* what) {
  const char* text = g_state->api->status_string ? g_state->api->status_string(s) : nullptr;
  sdk::fail(s == CUBLAS_STATUS_ALLOC_FAILED ? PLEXUS_ERROR_OUT_OF_MEMORY : PLEXUS_ERROR_DEVICE,
            device_name(call.device_index) + ": " + call.op + ": " + what + " failed: " +
                (text ? text : "cuBLAS status " + std::to_string(static_cast<int>(s))));
}
void check_blas(cublasStatus_t s, const plexus_kernel_call& call, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail_blas(s, call, what);
}

// The loaded API, loading it on first use; nullptr (logged once) when missing.
Api* api() {
  std::call_once(g_state->once, [] {
    auto* a = new Api;
    std::string why = a->bind();
    if (why.empty()) {
      g_state->api = a;
      return;
    }
    delete a;
    sdk::log(g_state->host, PLEXUS_LOG_WARN,
             "cuBLAS not loaded (" + why + "): mm, bmm and addmm use the own GEMM");
  });
  return g_state->api;
}

// A leased handle pair on the call's device and stream, with a workspace.
class Lease {
 public:
  Lease(const plexus_kernel_call& call, gpuStream_t stream)
      : call_(call), workspace_(call, kWorkspaceBytes) {
    h_ = g_state->handles.acquire(call.device_index, [&] { return create(); });
    Api& a = *g_state->api;
    // SetWorkspace after every SetStream: cuBLAS then drops back to its
    // default workspace, which two streams would share.
    cublasStatus_t s = a.set_stream(h_.blas, stream);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = a.set_workspace(h_.blas, workspace_.get(), workspace_.size());
    if (s != CUBLAS_STATUS_SUCCESS) {
      g_state->handles.release(call.device_index, h_);
      fail_blas(s, call, "cublasSetStream/cublasSetWorkspace");
    }
  }
  ~Lease() { g_state->handles.release(call_.device_index, h_); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  const Handles& handles() const { return h_; }
  const Workspace& workspace() const { return workspace_; }

 private:
  Handles create() {
    Api& a = *g_state->api;
    Handles h;
    check_blas(a.create(&h.blas), call_, "cublasCreate");
    cublasStatus_t s = a.set_math_mode(
        h.blas, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                          CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    if (s == CUBLAS_STATUS_SUCCESS) s = a.lt_create(&h.lt);
    if (s != CUBLAS_STATUS_SUCCESS) {
      a.destroy(h.blas);
      fail_blas(s, call_, "cublasLtCreate");
    }
    return h;
  }

  const plexus_kernel_call& call_;
  Workspace workspace_;
  Handles h_;
};

// A matrix operand as cuBLAS takes it: memory order (op) and leading dim.
struct Operand {
  const char* data;
  cublasOperation_t op;  // N: row-major in plexus terms, T: column-major
  int64_t ld;
};

// The element at [0, ..., 0] of t.
char* data_of(const plexus_tensor& t) {
  return static_cast<char*>(t.storage) + t.offset * static_cast<int64_t>(sdk::dtype_size(t.dtype));
}

// Matrix dims d, d+1 of t as an operand, when one memory order fits.
std::optional<Operand> operand(const plexus_tensor& t, int d) {
  int64_t r = t.sizes[d], c = t.sizes[d + 1], s0 = t.strides[d], s1 = t.strides[d + 1];
  if (c <= 1 || s1 == 1) {  // rows of contiguous elements
    int64_t ld = r <= 1 ? std::max<int64_t>(c, 1) : s0;
    if (ld >= std::max<int64_t>(c, 1)) return Operand{data_of(t), CUBLAS_OP_N, ld};
  }
  if (r <= 1 || s0 == 1) {  // columns of contiguous elements
    int64_t ld = c <= 1 ? std::max<int64_t>(r, 1) : s1;
    if (ld >= std::max<int64_t>(r, 1)) return Operand{data_of(t), CUBLAS_OP_T, ld};
  }
  return std::nullopt;
}

// The output must be row-major; its leading dim.
std::optional<int64_t> output_ld(const plexus_tensor& t, int d) {
  std::optional<Operand> o = operand(t, d);
  if (!o || o->op != CUBLAS_OP_N) return std::nullopt;
  return o->ld;
}

// cuBLAS types for a dtype: data, compute; nullopt for what goes to the own GEMM.
struct Types {
  cudaDataType data;
  cublasComputeType_t compute;
  cudaDataType scale;
};
std::optional<Types> types_of(plexus_dtype d) {
  switch (d) {
    case PLEXUS_DTYPE_F32:  // strict fp32 (no TF32): results match the other backends
      return Types{CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case PLEXUS_DTYPE_F64:
      return Types{CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case PLEXUS_DTYPE_F16:  // fp32 accumulation, as the own GEMM does
      return Types{CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case PLEXUS_DTYPE_BF16:
      return Types{CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    default:
      return std::nullopt;
  }
}

// alpha and beta in the scale type cuBLAS reads them as.
struct Scale {
  double f64;
  float f32;
  const void* ptr(const Types& t) const {
    return t.scale == CUDA_R_64F ? static_cast<const void*>(&f64) : &f32;
  }
};
Scale scale(double v) {
  return {v, static_cast<float>(v)};
}

// out[n, p] = alpha self[n, k] @ mat2[k, p] + beta out, batched over dim 0
// when `batched`. False when the layout or dtype is not cuBLAS's.
bool gemm(const plexus_kernel_call& call, const plexus_tensor& self, const plexus_tensor& mat2,
          const plexus_tensor& out, double alpha, double beta, bool batched) {
  std::optional<Types> ty = types_of(out.dtype);
  int d = batched ? 1 : 0;
  int64_t n = out.sizes[d], p = out.sizes[d + 1], k = self.sizes[d + 1];
  int64_t batch = batched ? out.sizes[0] : 1;
  if (!ty || n == 0 || p == 0 || k == 0 || batch == 0) return false;
  std::optional<Operand> a = operand(mat2, d), b = operand(self, d);
  std::optional<int64_t> ldc = output_ld(out, d);
  if (!a || !b || !ldc) return false;
  int64_t stride_c = batched ? out.strides[0] : 0;
  if (batch > 1 && stride_c < *ldc * n) return false;  // batches of out would overlap
  if (!api()) return false;
  gpuStream_t stream = stream_of(call);
  Lease lease(call, stream);
  Api& api_ = *g_state->api;
  Scale al = scale(alpha), be = scale(beta);
  cublasStatus_t s;
  if (!batched) {
    s = api_.gemm(lease.handles().blas, a->op, b->op, p, n, k, al.ptr(*ty), a->data, ty->data,
                  a->ld, b->data, ty->data, b->ld, be.ptr(*ty), data_of(out), ty->data, *ldc,
                  ty->compute, CUBLAS_GEMM_DEFAULT);
  } else {
    s = api_.gemm_batched(lease.handles().blas, a->op, b->op, p, n, k, al.ptr(*ty), a->data,
                          ty->data, a->ld, mat2.strides[0], b->data, ty->data, b->ld,
                          self.strides[0], be.ptr(*ty), data_of(out), ty->data, *ldc, stride_c,
                          batch, ty->compute, CUBLAS_GEMM_DEFAULT);
  }
  check_blas(s, call, batched ? "cublasGemmStridedBatchedEx" : "cublasGemmEx");
  return true;
}

bool mm(const plexus_kernel_call& call) {
  sdk::Args args(call);
  return gemm(call, args.tensor(0), args.tensor(1), args.tensor(2), 1.0, 0.0, false);
}

bool bmm(const plexus_kernel_call& call) {
  sdk::Args args(call);
  return gemm(call, args.tensor(0), args.tensor(1), args.tensor(2), 1.0, 0.0, true);
}

// cublasLt descriptors, destroyed with the object.
struct LtCall {
  Api& a;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtCall() {
    if (pref) a.pref_destroy(pref);
    for (auto l : {la, lb, lc, ld})
      if (l) a.layout_destroy(l);
    if (desc) a.desc_destroy(desc);
  }
};

// The column-major layout cuBLASLt reads for an operand of `rows` x `cols`
// as stored (before its op).
void layout(LtCall& lt, cublasLtMatrixLayout_t* l, cudaDataType t, cublasOperation_t op,
            int64_t rows_after_op, int64_t cols_after_op, int64_t ld,
            const plexus_kernel_call& call) {
  bool n = op == CUBLAS_OP_N;
  check_blas(lt.a.layout_create(l, t, static_cast<uint64_t>(n ? rows_after_op : cols_after_op),
                                static_cast<uint64_t>(n ? cols_after_op : rows_after_op), ld),
             call, "cublasLtMatrixLayoutCreate");
}

// addmm: out = beta self + alpha mat1 @ mat2. self is [n, p], possibly a
// broadcast row (stride 0 in dim 0) or out itself.
bool addmm(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& out = args.tensor(5);
  double beta = args.scalar(3).to_double(), alpha = args.scalar(4).to_double();
  if (alpha == 0) return false;  // the product is ignored, NaNs and all: the own GEMM
  // beta 0 ignores self (even its NaNs); self being out is cuBLAS's own C.
  bool self_is_out = data_of(self) == data_of(out) && self.strides[0] == out.strides[0] &&
                     self.strides[1] == out.strides[1];
  if (beta == 0 || self_is_out)
    return gemm(call, args.tensor(1), args.tensor(2), out, alpha, beta, false);

  std::optional<Types> ty = types_of(out.dtype);
  int64_t n = out.sizes[0], p = out.sizes[1], k = args.tensor(1).sizes[1];
  if (!ty || n == 0 || p == 0 || k == 0) return false;
  std::optional<Operand> a = operand(args.tensor(2), 0), b = operand(args.tensor(1), 0);
  std::optional<int64_t> ldd = output_ld(out, 0);
  bool bias = n > 1 && self.strides[0] == 0 && (p <= 1 || self.strides[1] == 1);
  std::optional<int64_t> self_ld = bias ? std::nullopt : output_ld(self, 0);
  if (!a || !b || !ldd || (!bias && !self_ld) || (bias && beta != 1)) return false;
  const int64_t ldc = bias ? *ldd : *self_ld;  // C is out itself under a bias epilogue
  // cuBLASLt's bias epilogue in bfloat16 was 16 ulp off on an H200 where the
  // bias cancels the product (it is added after a 16-bit rounding): float16
  // and bfloat16 bias rows go to the own GEMM, which rounds once.
  if (bias && (out.dtype == PLEXUS_DTYPE_F16 || out.dtype == PLEXUS_DTYPE_BF16)) return false;
  if (!api()) return false;

  gpuStream_t stream = stream_of(call);
  Lease lease(call, stream);
  LtCall lt{*g_state->api};
  check_blas(lt.a.desc_create(&lt.desc, ty->compute, ty->scale), call, "cublasLtMatmulDescCreate");
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* v, size_t size) {
    check_blas(lt.a.desc_set(lt.desc, attr, v, size), call, "cublasLtMatmulDescSetAttribute");
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, &a->op, sizeof(a->op));
  set(CUBLASLT_MATMUL_DESC_TRANSB, &b->op, sizeof(b->op));
  const void* bias_ptr = data_of(self);
  if (bias) {
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr));
  }
  // Column-major: D[p, n] = op(A)[p, k] op(B)[k, n] (+ C or the bias per row of D).
  layout(lt, &lt.la, ty->data, a->op, p, k, a->ld, call);
  layout(lt, &lt.lb, ty->data, b->op, k, n, b->ld, call);
  layout(lt, &lt.ld, ty->data, CUBLAS_OP_N, p, n, *ldd, call);
  layout(lt, &lt.lc, ty->data, CUBLAS_OP_N, p, n, ldc, call);
  check_blas(lt.a.pref_create(&lt.pref), call, "cublasLtMatmulPreferenceCreate");
  size_t ws = lease.workspace().size();
  check_blas(lt.a.pref_set(lt.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
             call, "cublasLtMatmulPreferenceSetAttribute");
  // Split-K partial sums in the compute type (fp32), never in float16/bfloat16.
  uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  check_blas(lt.a.pref_set(lt.pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                           sizeof(schemes)),
             call, "cublasLtMatmulPreferenceSetAttribute (reduction scheme)");
  // Everything the heuristics read: shapes, layouts, dtype, the epilogue and
  // each pointer's alignment.
  auto align = [](const void* ptr) { return int64_t(reinterpret_cast<uintptr_t>(ptr) % 256); };
  const void* c = bias ? static_cast<const void*>(data_of(out)) : data_of(self);
  std::vector<int64_t> key{call.device_index, int64_t{out.dtype}, a->op, b->op, n, p, k, a->ld,
                           b->ld, ldc, *ldd, bias, align(a->data), align(b->data),
                           align(c), align(data_of(out)), align(bias_ptr)};
  std::optional<cublasLtMatmulAlgo_t> algo;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(g_state->algo_mutex);
    auto it = g_state->algos.find(key);
    if (it != g_state->algos.end()) known = true, algo = it->second;
  }
  if (!known) {
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    check_blas(lt.a.heuristic(lease.handles().lt, lt.desc, lt.la, lt.lb, lt.lc, lt.ld, lt.pref,
                              1, &result, &found),
               call, "cublasLtMatmulAlgoGetHeuristic");
    if (found) algo = result.algo;
    std::lock_guard<std::mutex> lock(g_state->algo_mutex);
    g_state->algos.emplace(key, algo);
  }
  if (!algo) return false;  // no algorithm for this shape: the own GEMM
  Scale al = scale(alpha), be = scale(bias ? 0.0 : beta);
  check_blas(lt.a.matmul(lease.handles().lt, lt.desc, al.ptr(*ty), a->data, lt.la, b->data, lt.lb,
                         be.ptr(*ty), c, lt.lc, data_of(out), lt.ld, &*algo,
                         lease.workspace().get(), lease.workspace().size(), stream),
             call, "cublasLtMatmul");
  return true;
}

constexpr uint32_t kBlasDTypes =
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64) |
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BF16);

}  // namespace

void install_cublas(const plexus_host_api* host) {
  g_state = new State;
  g_state->host = host;
  claim({"mm.out", kBlasDTypes, mm});
  claim({"bmm.out", kBlasDTypes, bmm});
  claim({"addmm.out", kBlasDTypes, addmm});
}

void remove_cublas() {
  if (!g_state) return;
  if (Api* a = g_state->api) {
    g_state->handles.destroy_all([&](Handles& h) {
      a->lt_destroy(h.lt);
      a->destroy(h.blas);
    });
    delete a;
  }
  delete g_state;
  g_state = nullptr;
}

}  // namespace plexus::gpu
