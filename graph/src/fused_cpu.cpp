// The cpu kernel of a fused elementwise chain. Formulas are the cpu plugin's
// (plugins/cpu/{binary,unary,pointwise,compare}.cpp), in float, so a fused
// chain gives what the ops give one by one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <string>
#include <unordered_map>

#include "fused.h"
#include "plexus/sdk/tanh.hpp"
#include "plexus/dispatcher.h"
#include "plexus/error.h"

namespace plexus::graph {

const FusedOpInfo* fused_op_info(const Operator& op) {
  using C = FusedCode;
  static const std::unordered_map<std::string, FusedOpInfo> table = [] {
    std::unordered_map<std::string, FusedOpInfo> t;
    for (const char* n : {"add.Tensor", "add_.Tensor"}) t[n] = {C::Add, {0, 1}, 2};
    for (const char* n : {"sub.Tensor", "sub_.Tensor"}) t[n] = {C::Sub, {0, 1}, 2};
    for (const char* n : {"mul.Tensor", "mul_.Tensor"}) t[n] = {C::Mul, {0, 1}};
    for (const char* n : {"div.Tensor", "div_.Tensor"}) t[n] = {C::Div, {0, 1}};
    t["pow.Tensor_Tensor"] = {C::PowTT, {0, 1}};
    t["pow.Tensor_Scalar"] = {C::PowTS, {0}, 1};
    const std::pair<const char*, C> unary[] = {
        {"neg", C::Neg},   {"abs", C::Abs}, {"relu", C::Relu}, {"sqrt", C::Sqrt},
        {"rsqrt", C::Rsqrt}, {"exp", C::Exp}, {"log", C::Log},  {"tanh", C::Tanh},
        {"sigmoid", C::Sigmoid}};
    for (const auto& [n, c] : unary) {
      t[n] = {c, {0}};
      t[std::string(n) + "_"] = {c, {0}};
    }
    for (const char* n : {"lerp.Scalar", "lerp_.Scalar"}) t[n] = {C::Lerp, {0, 1}, 2};
    for (const char* n : {"addcmul", "addcmul_"}) t[n] = {C::Addcmul, {0, 1, 2}, 3};
    for (const char* n : {"addcdiv", "addcdiv_"}) t[n] = {C::Addcdiv, {0, 1, 2}, 3};
    t["gt.Scalar"] = {C::GtS, {0}, 1, true};
    t["to.dtype"] = {C::Cast, {0}};
    return t;
  }();
  auto it = table.find(op.name());
  if (it == table.end()) return nullptr;
  return &it->second;
}

namespace {

constexpr int64_t kChunk = 512;

float sigmoid(float x) {
  float e = std::exp(-std::abs(x));
  float s = 1.0f / (1.0f + e);
  return x >= 0 ? s : e * s;
}

// A tensor read or written element by element in the fused chain's order.
struct Access {
  const Tensor* tensor;  // the plan's tensor, expanded to the chain's shape when read
  Tensor expanded;
  int reg;
  bool contiguous = false;  // row-major over the chain's shape
  bool broadcast = false;   // one element for all
  bool is_bool = false;
};

// One instruction over a chunk. Built twice, for the x86-64 baseline and for
// x86-64-v3 (AVX2, FMA), picked when the library loads: the cpu plugin is
// built for x86-64-v3, so its kernels contract a + s * b into one fused
// multiply-add, and on such a machine the fused chain rounds the same way.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void exec_instr(FusedCode code, float* __restrict d, const float* a, const float* b,
                const float* c, float s, int64_t n) {
  switch (code) {
    case FusedCode::Add: for (int64_t i = 0; i < n; ++i) d[i] = a[i] + s * b[i]; break;
    case FusedCode::Sub: for (int64_t i = 0; i < n; ++i) d[i] = a[i] - s * b[i]; break;
    case FusedCode::Mul: for (int64_t i = 0; i < n; ++i) d[i] = a[i] * b[i]; break;
    case FusedCode::Div: for (int64_t i = 0; i < n; ++i) d[i] = a[i] / b[i]; break;
    case FusedCode::PowTT: for (int64_t i = 0; i < n; ++i) d[i] = std::pow(a[i], b[i]); break;
    case FusedCode::PowTS: for (int64_t i = 0; i < n; ++i) d[i] = std::pow(a[i], s); break;
    case FusedCode::Neg: for (int64_t i = 0; i < n; ++i) d[i] = -a[i]; break;
    case FusedCode::Abs: for (int64_t i = 0; i < n; ++i) d[i] = std::abs(a[i]); break;
    case FusedCode::Relu: for (int64_t i = 0; i < n; ++i) d[i] = a[i] < 0 ? 0.0f : a[i]; break;
    case FusedCode::Sqrt: for (int64_t i = 0; i < n; ++i) d[i] = std::sqrt(a[i]); break;
    case FusedCode::Rsqrt: for (int64_t i = 0; i < n; ++i) d[i] = 1.0f / std::sqrt(a[i]); break;
    case FusedCode::Exp: for (int64_t i = 0; i < n; ++i) d[i] = std::exp(a[i]); break;
    case FusedCode::Log: for (int64_t i = 0; i < n; ++i) d[i] = std::log(a[i]); break;
    case FusedCode::Tanh: for (int64_t i = 0; i < n; ++i) d[i] = sdk::tanh_f32(a[i]); break;
    case FusedCode::Sigmoid: for (int64_t i = 0; i < n; ++i) d[i] = sigmoid(a[i]); break;
    case FusedCode::Lerp:
      if (std::abs(s) < 0.5f)
        for (int64_t i = 0; i < n; ++i) d[i] = a[i] + s * (b[i] - a[i]);
      else
        for (int64_t i = 0; i < n; ++i) d[i] = b[i] - (b[i] - a[i]) * (1.0f - s);
      break;
    case FusedCode::Addcmul: for (int64_t i = 0; i < n; ++i) d[i] = a[i] + s * b[i] * c[i]; break;
    case FusedCode::Addcdiv: for (int64_t i = 0; i < n; ++i) d[i] = a[i] + s * b[i] / c[i]; break;
    case FusedCode::GtS: for (int64_t i = 0; i < n; ++i) d[i] = a[i] > s ? 1.0f : 0.0f; break;
    case FusedCode::Cast: std::memcpy(d, a, static_cast<size_t>(n) * sizeof(float)); break;
  }
}

}  // namespace

struct FusedKernel::Impl {
  struct Instr {
    FusedCode code;
    int dst, a = -1, b = -1, c = -1;
    float s = 0;
  };
  Shape shape;
  int64_t numel = 0;
  std::vector<Access> loads, stores;
  std::vector<std::pair<int, float>> constants;  // registers holding a C++ number
  std::vector<Instr> code;
  int nregs = 0;

  // One worker's registers: a chunk of floats per register.
  // A register is read through in(r): its buffer, or for an input that is
  // row-major over the chain's shape, the input's own memory at the chunk (no
  // copy). Instructions write only registers of their own (each result gets a
  // new one), never memory a register is read from.
  struct Regs {
    std::vector<float> data;
    std::vector<const float*> src;
    float* operator()(int r) { return data.data() + static_cast<size_t>(r) * kChunk; }
    const float* in(int r) const { return src[static_cast<size_t>(r)]; }
  };
  Regs make_regs() const {
    Regs r;
    r.data.assign(static_cast<size_t>(nregs) * kChunk, 0.0f);
    r.src.resize(static_cast<size_t>(nregs));
    for (int i = 0; i < nregs; ++i) r.src[static_cast<size_t>(i)] = r(i);
    for (const auto& [reg, x] : constants) std::fill(r(reg), r(reg) + kChunk, x);
    return r;
  }
  Regs main_regs;  // the calling thread's, kept between runs
  void run_range(Regs& regs, int64_t begin, int64_t end);

  // Element offsets (in elements) of chunk [i0, i0 + n) of `t` over `shape`.
  void offsets(const Tensor& t, int64_t i0, int64_t n, std::vector<int64_t>& out) const {
    const size_t nd = shape.size();
    const IntArrayRef st = t.strides();
    int64_t idx[16] = {};
    int64_t rest = i0;
    for (size_t d = nd; d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.resize(static_cast<size_t>(n));
    int64_t off = t.storage_offset();
    for (size_t d = 0; d < nd; ++d) off += idx[d] * st[d];
    for (int64_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = off;
      for (size_t d = nd; d-- > 0;) {
        off += st[d];
        if (++idx[d] < shape[d]) break;
        off -= idx[d] * st[d];
        idx[d] = 0;
      }
    }
  }

  void load(Regs& regs, const Access& a, int64_t i0, int64_t n, std::vector<int64_t>& scratch) {
    float* r = regs(a.reg);
    const Tensor& t = a.expanded;
    if (a.is_bool) {
      const bool* base = static_cast<const bool*>(t.storage()->data());
      if (a.broadcast) {
        std::fill(r, r + n, base[t.storage_offset()] ? 1.0f : 0.0f);
        return;
      }
      if (a.contiguous) {
        const bool* p = base + t.storage_offset() + i0;
        for (int64_t i = 0; i < n; ++i) r[i] = static_cast<float>(p[i]);  // no branch: 0 or 1
        return;
      }
      offsets(t, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) r[i] = static_cast<float>(base[scratch[static_cast<size_t>(i)]]);
      return;
    }
    const float* base = static_cast<const float*>(t.storage()->data());
    if (a.contiguous) {
      regs.src[static_cast<size_t>(a.reg)] = base + t.storage_offset() + i0;
      return;
    }
    if (a.broadcast) {
      std::fill(r, r + n, base[t.storage_offset()]);
    } else {
      offsets(t, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) r[i] = base[scratch[static_cast<size_t>(i)]];
    }
  }

  void store(Regs& regs, const Access& a, int64_t i0, int64_t n, std::vector<int64_t>& scratch) {
    const float* r = regs.in(a.reg);
    const Tensor& t = a.expanded;
    if (a.is_bool) {
      bool* base = static_cast<bool*>(t.storage()->data());
      if (a.contiguous) {
        bool* p = base + t.storage_offset() + i0;
        for (int64_t i = 0; i < n; ++i) p[i] = r[i] != 0.0f;
        return;
      }
      offsets(t, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) base[scratch[static_cast<size_t>(i)]] = r[i] != 0.0f;
      return;
    }
    float* base = static_cast<float*>(t.storage()->data());
    if (a.contiguous) {
      std::memcpy(base + t.storage_offset() + i0, r, static_cast<size_t>(n) * sizeof(float));
    } else {
      offsets(t, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) base[scratch[static_cast<size_t>(i)]] = r[i];
    }
  }

  void exec(Regs& regs, const Instr& in, int64_t n) {
    exec_instr(in.code, regs(in.dst), in.a >= 0 ? regs.in(in.a) : nullptr,
               in.b >= 0 ? regs.in(in.b) : nullptr, in.c >= 0 ? regs.in(in.c) : nullptr, in.s, n);
  }

};

FusedKernel::FusedKernel(const Graph& g, const Node& fused, const std::vector<Tensor>& vals)
    : impl_(std::make_unique<Impl>()) {
  Impl& k = *impl_;
  const ValueInfo& last = g.values[static_cast<size_t>(fused.members.back().value)];
  k.shape = last.sizes;
  k.numel = 1;
  for (int64_t s : k.shape) k.numel *= s;
  const Shape contiguous = contiguous_strides(k.shape);
  std::unordered_map<int, int> current;  // value -> the register holding it now
  std::vector<int> written;              // values written in place, in order
  auto access = [&](const Tensor& t, int reg, bool is_bool) {
    Access a{&t, t.expand(k.shape), reg};
    a.is_bool = is_bool;
    // Dims of size 1 have any stride.
    a.contiguous = a.broadcast = true;
    for (size_t d = 0; d < k.shape.size(); ++d) {
      if (k.shape[d] == 1) continue;
      int64_t st = a.expanded.stride(static_cast<int64_t>(d));
      a.contiguous = a.contiguous && st == contiguous[d];
      a.broadcast = a.broadcast && st == 0;
    }
    if (k.numel <= 1) a.broadcast = false;
    return a;
  };
  auto operand = [&](int v) {
    if (auto it = current.find(v); it != current.end()) return it->second;
    int r = k.nregs++;
    const ValueInfo& info = g.values[static_cast<size_t>(v)];
    const Tensor& t = vals[static_cast<size_t>(v)];
    if (info.wrapped_number) {
      double x = info.dtype == DType::F64 ? *static_cast<const double*>(t.data_ptr())
                                          : static_cast<double>(*static_cast<const int64_t*>(t.data_ptr()));
      k.constants.emplace_back(r, static_cast<float>(x));
    } else {
      k.loads.push_back(access(t, r, info.dtype == DType::Bool));
    }
    current[v] = r;
    return r;
  };
  for (const Node& m : fused.members) {
    const FusedOpInfo* info = fused_op_info(*m.op);
    PLEXUS_CHECK(info != nullptr, ErrorCode::Internal, "fused node {} holds {}", fused.name,
                 m.op->name());
    Impl::Instr in{info->code, 0};
    int ops[3] = {-1, -1, -1};
    for (size_t i = 0; i < info->tensors.size(); ++i)
      ops[i] = operand(m.args[static_cast<size_t>(info->tensors[i])].value);
    in.a = ops[0];
    in.b = ops[1];
    in.c = ops[2];
    if (info->scalar >= 0) in.s = static_cast<float>(m.args[static_cast<size_t>(info->scalar)].scalar.to_double());
    in.dst = k.nregs++;
    k.code.push_back(in);
    current[m.value] = in.dst;
    if (m.op->written_arg() >= 0 &&
        std::find(written.begin(), written.end(), m.value) == written.end())
      written.push_back(m.value);
  }
  for (int v : written)
    k.stores.push_back(access(vals[static_cast<size_t>(v)], current.at(v), false));
  for (int v : fused.stores) {
    auto it = current.find(v);
    PLEXUS_CHECK(it != current.end(), ErrorCode::Internal, "fused node {} does not make value {}",
                 fused.name, v);
    k.stores.push_back(access(vals[static_cast<size_t>(v)], it->second,
                              g.values[static_cast<size_t>(v)].dtype == DType::Bool));
  }
  k.main_regs = k.make_regs();
}

FusedKernel::~FusedKernel() = default;

void FusedKernel::Impl::run_range(Regs& regs, int64_t begin, int64_t end) {
  std::vector<int64_t> scratch;
  for (int64_t i0 = begin; i0 < end; i0 += kChunk) {
    int64_t n = std::min(kChunk, end - i0);
    for (const Access& a : loads) load(regs, a, i0, n, scratch);
    for (const Instr& in : code) exec(regs, in, n);
    for (const Access& a : stores) store(regs, a, i0, n, scratch);
  }
}

void FusedKernel::run() {
  Impl& k = *impl_;
  // The plan gives a result new memory each replay: views follow it.
  for (auto* list : {&k.loads, &k.stores})
    for (Access& a : *list)
      if (a.expanded.storage() != a.tensor->storage() ||
          a.expanded.storage_offset() != a.tensor->storage_offset())
        a.expanded = a.tensor->expand(k.shape);
  // Large chains split over the cores, in whole chunks; small ones (the
  // seed's step) stay on the calling thread, which starting threads would cost more.
  constexpr int64_t kParallelElements = int64_t(1) << 18;
  // hardware_concurrency() reads /sys each time: once is enough.
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (k.numel < kParallelElements || cores == 1) {
    k.run_range(k.main_regs, 0, k.numel);
    return;
  }
  const int64_t chunks = (k.numel + kChunk - 1) / kChunk;
  const int64_t per = (chunks + cores - 1) / cores;
  std::vector<std::thread> workers;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (unsigned w = 1; w < cores; ++w) {
    int64_t begin = std::min(k.numel, int64_t(w) * per * kChunk);
    int64_t end = std::min(k.numel, int64_t(w + 1) * per * kChunk);
    if (begin >= end) break;
    workers.emplace_back([&, begin, end] {
      try {
        Impl::Regs regs = k.make_regs();
        k.run_range(regs, begin, end);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        error = std::current_exception();
      }
    });
  }
  k.run_range(k.main_regs, 0, std::min(k.numel, per * kChunk));
  for (std::thread& t : workers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace plexus::graph
