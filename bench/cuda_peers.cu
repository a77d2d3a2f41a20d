// The CUDA peers of plexus-bench: the same work as a plexus-bench case,
// written directly against the CUDA runtime and cuBLAS, with no plexus in
// between. plexus-bench opens this library (libplexus-bench-cuda-peers.so,
// built beside the cuda plugin, where nvcc is enabled) when it runs on a cuda
// device, and times each peer right after its case, on the same shapes.
//
// The peers, by case:
//   add_1elem_out    cuda_launch: one launch of a one-element add kernel (the
//                    floor of a launch: what a plexus op adds above it is
//                    the dispatcher, the ABI and the kernel's host work)
//   add_16M_f32      cuda_add_kernel: a plain float4 grid-stride add
//   copy_16M_f32     cuda_copy_kernel (a plain float4 copy: the bandwidth the
//                    device shows to a copy kernel) and cudaMemcpyAsync (D2D)
//   sgemm_*          cublas_direct: cublasGemmEx, FP32 compute without TF32,
//                    the operands swapped for row-major as the plugin does,
//                    with the plugin's 32 MiB workspace
//
// The interface is C, so the bench needs no CUDA headers: pbcp_peers names
// the peers of a case; pbcp_make sets one up (its buffers) and returns a
// handle; pbcp_run queues one operation on the peer's own stream;
// pbcp_sync waits for the stream and reports an error the operations left.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

__global__ void add_one(float* out, const float* a, const float* b) { out[0] = a[0] + b[0]; }

__global__ void add_f4(float4* out, const float4* a, const float4* b, long n4) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n4;
       i += long(gridDim.x) * blockDim.x) {
    float4 x = a[i], y = b[i];
    out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void copy_f4(float4* out, const float4* in, long n4) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n4;
       i += long(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

enum class Kind { Launch, Add, CopyKernel, Memcpy, Gemm };

struct Peer {
  Kind kind;
  int device = 0;
  cudaStream_t stream = nullptr;
  float* buf[3] = {nullptr, nullptr, nullptr};
  long n = 0;  // elements (elementwise) or m (gemm)
  long k = 0, p = 0;
  int blocks = 0;
  cublasHandle_t blas = nullptr;
  void* workspace = nullptr;
};

constexpr size_t kWorkspaceBytes = size_t{32} << 20;
constexpr long k16M = long(16) << 20;

bool fail(char* why, size_t len, const char* what, const char* detail) {
  if (why && len) std::snprintf(why, len, "%s: %s", what, detail);
  return false;
}

#define PEER_CHECK(expr)                                                          \
  do {                                                                            \
    cudaError_t e_ = (expr);                                                      \
    if (e_ != cudaSuccess) return fail(why, why_len, #expr, cudaGetErrorString(e_)); \
  } while (0)

bool setup(Peer& p, char* why, size_t why_len) {
  PEER_CHECK(cudaSetDevice(p.device));
  PEER_CHECK(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
  int sms = 0;
  PEER_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, p.device));
  p.blocks = sms * 8;  // a few waves of 256-thread blocks on every SM
  size_t sizes[3] = {0, 0, 0};
  switch (p.kind) {
    case Kind::Launch: sizes[0] = sizes[1] = sizes[2] = sizeof(float); break;
    case Kind::Add: sizes[0] = sizes[1] = sizes[2] = size_t(p.n) * sizeof(float); break;
    case Kind::CopyKernel:
    case Kind::Memcpy: sizes[0] = sizes[1] = size_t(p.n) * sizeof(float); break;
    case Kind::Gemm:
      sizes[0] = size_t(p.n) * size_t(p.k) * sizeof(float);
      sizes[1] = size_t(p.k) * size_t(p.p) * sizeof(float);
      sizes[2] = size_t(p.n) * size_t(p.p) * sizeof(float);
      break;
  }
  for (int i = 0; i < 3; ++i)
    if (sizes[i]) {
      PEER_CHECK(cudaMalloc(reinterpret_cast<void**>(&p.buf[i]), sizes[i]));
      PEER_CHECK(cudaMemsetAsync(p.buf[i], 0, sizes[i], p.stream));
    }
  if (p.kind == Kind::Gemm) {
    if (cublasCreate(&p.blas) != CUBLAS_STATUS_SUCCESS)
      return fail(why, why_len, "cublasCreate", "failed");
    PEER_CHECK(cudaMalloc(&p.workspace, kWorkspaceBytes));
    if (cublasSetStream(p.blas, p.stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(p.blas, p.workspace, kWorkspaceBytes) != CUBLAS_STATUS_SUCCESS)
      return fail(why, why_len, "cublasSetStream/cublasSetWorkspace", "failed");
  }
  PEER_CHECK(cudaStreamSynchronize(p.stream));
  return true;
}

void release(Peer* p) {
  if (!p) return;
  cudaSetDevice(p->device);
  if (p->stream) cudaStreamSynchronize(p->stream);
  if (p->blas) cublasDestroy(p->blas);
  cudaFree(p->workspace);
  for (float* b : p->buf) cudaFree(b);
  if (p->stream) cudaStreamDestroy(p->stream);
  delete p;
}

// sgemm_N is [N, N] @ [N, N]; sgemm_MxPxK is [M, K] @ [K, P].
bool gemm_shape(const std::string& name, long& m, long& k, long& p) {
  if (name.rfind("sgemm_", 0) != 0) return false;
  long a = 0, b = 0, c = 0;
  if (std::sscanf(name.c_str(), "sgemm_%ldx%ldx%ld", &a, &b, &c) == 3) {
    m = a, p = b, k = c;
    return true;
  }
  if (std::sscanf(name.c_str(), "sgemm_%ld", &a) == 1) {
    m = k = p = a;
    return true;
  }
  return false;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* pbcp_peers(const char* case_name) {
  std::string c = case_name;
  long m, k, p;
  if (c == "add_1elem_out") return "cuda_launch";
  if (c == "add_16M_f32") return "cuda_add_kernel";
  if (c == "copy_16M_f32") return "cuda_copy_kernel cudaMemcpyAsync";
  if (gemm_shape(c, m, k, p)) return "cublas_direct";
  return "";
}

__attribute__((visibility("default"))) void* pbcp_make(const char* case_name,
                                                       const char* peer_name, int device,
                                                       char* why, size_t why_len) {
  std::string c = case_name, name = peer_name;
  Peer* p = new Peer{};
  p->device = device;
  if (c == "add_1elem_out" && name == "cuda_launch") {
    p->kind = Kind::Launch;
  } else if (c == "add_16M_f32" && name == "cuda_add_kernel") {
    p->kind = Kind::Add, p->n = k16M;
  } else if (c == "copy_16M_f32" && name == "cuda_copy_kernel") {
    p->kind = Kind::CopyKernel, p->n = k16M;
  } else if (c == "copy_16M_f32" && name == "cudaMemcpyAsync") {
    p->kind = Kind::Memcpy, p->n = k16M;
  } else if (name == "cublas_direct" && gemm_shape(c, p->n, p->k, p->p)) {
    p->kind = Kind::Gemm;
  } else {
    delete p;
    fail(why, why_len, case_name, ("no CUDA peer named " + name).c_str());
    return nullptr;
  }
  if (!setup(*p, why, why_len)) {
    release(p);
    return nullptr;
  }
  return p;
}

// Queues one operation; 0, or an error code of the launch.
__attribute__((visibility("default"))) int pbcp_run(void* handle) {
  Peer& p = *static_cast<Peer*>(handle);
  switch (p.kind) {
    case Kind::Launch: add_one<<<1, 1, 0, p.stream>>>(p.buf[2], p.buf[0], p.buf[1]); break;
    case Kind::Add:
      add_f4<<<p.blocks, 256, 0, p.stream>>>(reinterpret_cast<float4*>(p.buf[2]),
                                             reinterpret_cast<const float4*>(p.buf[0]),
                                             reinterpret_cast<const float4*>(p.buf[1]), p.n / 4);
      break;
    case Kind::CopyKernel:
      copy_f4<<<p.blocks, 256, 0, p.stream>>>(reinterpret_cast<float4*>(p.buf[1]),
                                              reinterpret_cast<const float4*>(p.buf[0]), p.n / 4);
      break;
    case Kind::Memcpy:
      return int(cudaMemcpyAsync(p.buf[1], p.buf[0], size_t(p.n) * sizeof(float),
                                 cudaMemcpyDeviceToDevice, p.stream));
    case Kind::Gemm: {
      // Row-major out[m, p] = a[m, k] b[k, p] is column-major out^T = b^T a^T.
      const float alpha = 1.0f, beta = 0.0f;
      cublasStatus_t s = cublasGemmEx(p.blas, CUBLAS_OP_N, CUBLAS_OP_N, int(p.p), int(p.n),
                                      int(p.k), &alpha, p.buf[1], CUDA_R_32F, int(p.p), p.buf[0],
                                      CUDA_R_32F, int(p.k), &beta, p.buf[2], CUDA_R_32F,
                                      int(p.p), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + int(s);
    }
  }
  return int(cudaGetLastError());
}

// Waits for the peer's stream; 0, or the first error, written to why.
__attribute__((visibility("default"))) int pbcp_sync(void* handle, char* why, size_t why_len) {
  Peer& p = *static_cast<Peer*>(handle);
  cudaError_t e = cudaStreamSynchronize(p.stream);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) fail(why, why_len, "cudaStreamSynchronize", cudaGetErrorString(e));
  return int(e);
}

__attribute__((visibility("default"))) void pbcp_free(void* handle) {
  release(static_cast<Peer*>(handle));
}

}  // extern "C"
