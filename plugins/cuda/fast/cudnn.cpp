// cuDNN for conv2d.out (cudnnConvolutionForward, then cudnnAddTensor for the
// bias). Strided input and output are passed as they are; a non-packed
// weight, integer dtypes, sizes beyond int, float16/bfloat16 with a bias and
// a missing libcudnn go to the own kernels.
//
// fp32 convolutions run with CUDNN_FMA_MATH: no TF32, so results agree with
// the other backends to fp32 rounding. The algorithm for a configuration is
// chosen once (cuDNN's heuristics) and kept: the query costs far more than a
// small convolution.
//
// What an H200 showed (2026-11-28, plugins/cuda/README.md): a separate bias
// add rounds the convolution to float16/bfloat16 first, and where the bias
// cancels most of it the error reached 30 ulp of the result: those calls use
// the own kernel, which adds the bias before its one rounding. max_pool2d is
// not cuDNN's: its max pooling starts from -FLT_MAX, so a window of -inf
// gives -3.4e38 where PyTorch and every other backend give -inf.
#include <cudnn.h>

#include <algorithm>
#include <climits>
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
constexpr const char* kCudnn = "libcudnn.so." PLEXUS_STR(CUDNN_MAJOR);
// Algorithms needing more temporary memory than this are passed over.
constexpr size_t kMaxWorkspace = size_t{256} << 20;

struct Api {
  Library lib{kCudnn, "libcudnn.so"};
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnGetErrorString) error_string = nullptr;
  decltype(&cudnnCreateTensorDescriptor) tensor_create = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) tensor_destroy = nullptr;
  decltype(&cudnnSetTensor4dDescriptorEx) tensor_set = nullptr;
  decltype(&cudnnCreateFilterDescriptor) filter_create = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) filter_destroy = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) filter_set = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) conv_create = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) conv_destroy = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) conv_set = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) conv_groups = nullptr;
  decltype(&cudnnSetConvolutionMathType) conv_math = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) conv_algos = nullptr;
  decltype(&cudnnConvolutionForward) conv_forward = nullptr;
  decltype(&cudnnAddTensor) add_tensor = nullptr;

  // Binds every function; "" or why cuDNN cannot be used.
  std::string bind() {
    if (!lib.ok()) return lib.error();
    bool ok = lib.bind(create, "cudnnCreate") && lib.bind(destroy, "cudnnDestroy") &&
              lib.bind(set_stream, "cudnnSetStream") &&
              lib.bind(error_string, "cudnnGetErrorString") &&
              lib.bind(tensor_create, "cudnnCreateTensorDescriptor") &&
              lib.bind(tensor_destroy, "cudnnDestroyTensorDescriptor") &&
              lib.bind(tensor_set, "cudnnSetTensor4dDescriptorEx") &&
              lib.bind(filter_create, "cudnnCreateFilterDescriptor") &&
              lib.bind(filter_destroy, "cudnnDestroyFilterDescriptor") &&
              lib.bind(filter_set, "cudnnSetFilter4dDescriptor") &&
              lib.bind(conv_create, "cudnnCreateConvolutionDescriptor") &&
              lib.bind(conv_destroy, "cudnnDestroyConvolutionDescriptor") &&
              lib.bind(conv_set, "cudnnSetConvolution2dDescriptor") &&
              lib.bind(conv_groups, "cudnnSetConvolutionGroupCount") &&
              lib.bind(conv_math, "cudnnSetConvolutionMathType") &&
              lib.bind(conv_algos, "cudnnGetConvolutionForwardAlgorithm_v7") &&
              lib.bind(conv_forward, "cudnnConvolutionForward") &&
              lib.bind(add_tensor, "cudnnAddTensor");
    return ok ? "" : lib.error();
  }
};

struct State {
  const plexus_host_api* host = nullptr;
  std::once_flag once;
  Api* api = nullptr;  // null when cuDNN could not be loaded
  HandlePool<cudnnHandle_t> handles;
  // The algorithm and workspace chosen for each configuration (algo_key).
  std::mutex algo_mutex;
  std::map<std::vector<int64_t>, std::pair<cudnnConvolutionFwdAlgo_t, size_t>> algos;
};
State* g_state = nullptr;

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
             "cuDNN not loaded (" + why + "): conv2d uses the own kernel");
  });
  return g_state->api;
}

void check_dnn(cudnnStatus_t s, const plexus_kernel_call& call, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  const char* text = g_state->api->error_string(s);
  sdk::fail(s == CUDNN_STATUS_ALLOC_FAILED ? PLEXUS_ERROR_OUT_OF_MEMORY : PLEXUS_ERROR_DEVICE,
            device_name(call.device_index) + ": " + call.op + ": " + what + " failed: " +
                (text ? text : "cuDNN status " + std::to_string(static_cast<int>(s))));
}

// A leased handle on the call's device, set to the call's stream.
class Lease {
 public:
  Lease(const plexus_kernel_call& call, gpuStream_t stream) : device_(call.device_index) {
    Api& a = *g_state->api;
    h_ = g_state->handles.acquire(device_, [&] {
      cudnnHandle_t h = nullptr;
      check_dnn(a.create(&h), call, "cudnnCreate");
      return h;
    });
    cudnnStatus_t s = a.set_stream(h_, stream);
    if (s != CUDNN_STATUS_SUCCESS) {
      g_state->handles.release(device_, h_);
      check_dnn(s, call, "cudnnSetStream");
    }
  }
  ~Lease() { g_state->handles.release(device_, h_); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  cudnnHandle_t get() const { return h_; }

 private:
  int32_t device_;
  cudnnHandle_t h_ = nullptr;
};

// Descriptors of one call, destroyed with it.
struct Descriptors {
  Api& a;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, b = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~Descriptors() {
    for (auto t : {x, y, b})
      if (t) a.tensor_destroy(t);
    if (w) a.filter_destroy(w);
    if (conv) a.conv_destroy(conv);
  }
};

std::optional<cudnnDataType_t> data_type(plexus_dtype d) {
  switch (d) {
    case PLEXUS_DTYPE_F32:
      return CUDNN_DATA_FLOAT;
    case PLEXUS_DTYPE_F64:
      return CUDNN_DATA_DOUBLE;
    case PLEXUS_DTYPE_F16:
      return CUDNN_DATA_HALF;
    case PLEXUS_DTYPE_BF16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return std::nullopt;
  }
}

bool fits_int(int64_t v) {
  return v >= 0 && v <= INT_MAX;
}

// True when every size and stride of t fits cuDNN's int descriptors and no
// dim of more than one element is broadcast (stride 0), which cuDNN refuses.
bool fits(const plexus_tensor& t) {
  for (int i = 0; i < t.ndim; ++i) {
    if (!fits_int(t.sizes[i]) || !fits_int(t.strides[i])) return false;
    if (t.sizes[i] > 1 && t.strides[i] == 0) return false;
  }
  return true;
}

// The stride cuDNN is given for dim k: any positive one does for a dim of one element.
int stride_of(const plexus_tensor& t, int k) {
  return t.sizes[k] == 1 && t.strides[k] == 0 ? 1 : static_cast<int>(t.strides[k]);
}

// True when t is laid out densely in row-major order (size-1 dims aside).
bool packed(const plexus_tensor& t) {
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.sizes[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.sizes[i];
  }
  return true;
}

const void* data_of(const plexus_tensor& t) {
  return static_cast<const char*>(t.storage) +
         t.offset * static_cast<int64_t>(sdk::dtype_size(t.dtype));
}
void* mutable_data_of(const plexus_tensor& t) {
  return const_cast<void*>(data_of(t));
}

// A 4-D strided tensor descriptor.
void describe4d(Descriptors& d, cudnnTensorDescriptor_t* desc, cudnnDataType_t type,
                const plexus_tensor& t, const plexus_kernel_call& call) {
  check_dnn(d.a.tensor_create(desc), call, "cudnnCreateTensorDescriptor");
  auto n = [&](int k) { return static_cast<int>(t.sizes[k]); };
  check_dnn(d.a.tensor_set(*desc, type, n(0), n(1), n(2), n(3), stride_of(t, 0), stride_of(t, 1),
                           stride_of(t, 2), stride_of(t, 3)),
            call, "cudnnSetTensor4dDescriptorEx");
}

// alpha = 1 and beta in the scale type cuDNN reads for `type`.
struct Scales {
  double d1 = 1, d0 = 0;
  float f1 = 1, f0 = 0;
  const void* one(cudnnDataType_t t) const {
    return t == CUDNN_DATA_DOUBLE ? (const void*)&d1 : &f1;
  }
  const void* zero(cudnnDataType_t t) const {
    return t == CUDNN_DATA_DOUBLE ? (const void*)&d0 : &f0;
  }
};

// What decides the algorithm: device, dtype, every size and stride, and the
// convolution's parameters.
std::vector<int64_t> algo_key(const plexus_kernel_call& call, const plexus_tensor& x,
                              const plexus_tensor& w, const plexus_tensor& y,
                              const std::vector<int64_t>& params) {
  std::vector<int64_t> k{call.device_index, int64_t{y.dtype}};
  for (const plexus_tensor* t : {&x, &w, &y})
    for (int d = 0; d < 4; ++d) k.insert(k.end(), {t->sizes[d], t->strides[d]});
  k.insert(k.end(), params.begin(), params.end());
  return k;
}

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "?";
  }
}

// The fastest forward algorithm within kMaxWorkspace by cuDNN's heuristics,
// and its workspace size; asked once per configuration.
std::optional<std::pair<cudnnConvolutionFwdAlgo_t, size_t>> pick_algorithm(
    Descriptors& d, cudnnHandle_t h, const plexus_kernel_call& call,
    const std::vector<int64_t>& key) {
  {
    std::lock_guard<std::mutex> lock(g_state->algo_mutex);
    auto it = g_state->algos.find(key);
    if (it != g_state->algos.end()) return it->second;
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int n = 0;
  check_dnn(d.a.conv_algos(h, d.x, d.w, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf),
            call, "cudnnGetConvolutionForwardAlgorithm_v7");
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kMaxWorkspace) {
      auto choice = std::make_pair(perf[i].algo, perf[i].memory);
      sdk::log(g_state->host, PLEXUS_LOG_DEBUG,
               std::string("cuDNN conv2d: ") + algo_name(choice.first) + " with a " +
                   std::to_string(choice.second) + "-byte workspace for a new configuration");
      std::lock_guard<std::mutex> lock(g_state->algo_mutex);
      g_state->algos.emplace(key, choice);
      return choice;
    }
  return std::nullopt;
}

// conv2d.out(input, weight, bias?, stride, padding, dilation, groups, out)
bool conv2d(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& x = args.tensor(0);
  const plexus_tensor& w = args.tensor(1);
  const plexus_tensor* bias = args.optional_tensor(2);
  auto stride = args.int_list(3), padding = args.int_list(4), dilation = args.int_list(5);
  int64_t groups = args.integer(6);
  const plexus_tensor& y = args.tensor(7);
  std::optional<cudnnDataType_t> type = data_type(y.dtype);
  if (!type || !fits(x) || !fits(w) || !fits(y) || (bias && !fits(*bias)) || !packed(w))
    return false;
  // A separate bias add would round twice (the file's comment): the own kernel.
  if (bias && (*type == CUDNN_DATA_HALF || *type == CUDNN_DATA_BFLOAT16)) return false;
  for (int k = 0; k < 2; ++k)
    if (!fits_int(stride[k]) || !fits_int(padding[k]) || !fits_int(dilation[k])) return false;
  if (!fits_int(groups)) return false;
  for (int k = 0; k < 4; ++k)
    if (x.sizes[k] == 0 || y.sizes[k] == 0 || w.sizes[k] == 0) return false;
  if (!api()) return false;

  gpuStream_t stream = stream_of(call);
  Lease h(call, stream);
  Descriptors d{*g_state->api};
  describe4d(d, &d.x, *type, x, call);
  describe4d(d, &d.y, *type, y, call);
  check_dnn(d.a.filter_create(&d.w), call, "cudnnCreateFilterDescriptor");
  auto i = [](int64_t v) { return static_cast<int>(v); };
  check_dnn(d.a.filter_set(d.w, *type, CUDNN_TENSOR_NCHW, i(w.sizes[0]), i(w.sizes[1]),
                           i(w.sizes[2]), i(w.sizes[3])),
            call, "cudnnSetFilter4dDescriptor");
  check_dnn(d.a.conv_create(&d.conv), call, "cudnnCreateConvolutionDescriptor");
  cudnnDataType_t compute = *type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check_dnn(d.a.conv_set(d.conv, i(padding[0]), i(padding[1]), i(stride[0]), i(stride[1]),
                         i(dilation[0]), i(dilation[1]), CUDNN_CROSS_CORRELATION, compute),
            call, "cudnnSetConvolution2dDescriptor");
  check_dnn(d.a.conv_groups(d.conv, i(groups)), call, "cudnnSetConvolutionGroupCount");
  bool reduced = *type == CUDNN_DATA_HALF || *type == CUDNN_DATA_BFLOAT16;
  check_dnn(d.a.conv_math(d.conv, reduced ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH), call,
            "cudnnSetConvolutionMathType");
  auto algo = pick_algorithm(d, h.get(), call,
                             algo_key(call, x, w, y,
                                      {stride[0], stride[1], padding[0], padding[1], dilation[0],
                                       dilation[1], groups}));
  if (!algo) return false;
  Workspace ws(call, algo->second);
  Scales s;
  check_dnn(
      d.a.conv_forward(h.get(), s.one(*type), d.x, data_of(x), d.w, data_of(w), d.conv, algo->first,
                       ws.get(), algo->second, s.zero(*type), d.y, mutable_data_of(y)),
      call, "cudnnConvolutionForward");
  if (bias) {
    check_dnn(d.a.tensor_create(&d.b), call, "cudnnCreateTensorDescriptor");
    int c = i(bias->sizes[0]), bs = stride_of(*bias, 0);
    int n_stride = static_cast<int>(std::min<int64_t>(int64_t{c} * bs, INT_MAX));
    check_dnn(d.a.tensor_set(d.b, *type, 1, c, 1, 1, n_stride, bs, 1, 1), call,
              "cudnnSetTensor4dDescriptorEx (bias)");
    check_dnn(d.a.add_tensor(h.get(), s.one(*type), d.b, data_of(*bias), s.one(*type), d.y,
                             mutable_data_of(y)),
              call, "cudnnAddTensor (bias)");
  }
  return true;
}

constexpr uint32_t kDnnDTypes =
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64) |
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BF16);

}  // namespace

void install_cudnn(const plexus_host_api* host) {
  g_state = new State;
  g_state->host = host;
  claim({"conv2d.out", kDnnDTypes, conv2d});
}

void remove_cudnn() {
  if (!g_state) return;
  if (Api* a = g_state->api) {
    g_state->handles.destroy_all([&](cudnnHandle_t h) { a->destroy(h); });
    delete a;
  }
  delete g_state;
  g_state = nullptr;
}

}  // namespace plexus::gpu
