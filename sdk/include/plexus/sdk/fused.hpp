// Fused elementwise chains on host memory: the ops a chain may hold, and the
// kernel that runs one as a single pass over memory. The cpu plugin compiles
// graphs with it (ABI 1.1, plexus_graph_extension), and libplexus runs it for
// cpu graphs when no plugin takes them, so both give the same bits. Formulas
// are the cpu plugin's elementwise kernels', in float.
//
//   sdk::FusedChain c({800, 64});
//   int x = c.input(), g = c.input();                 // bound per run
//   int m = c.op(sdk::FusedCode::GtS, x, -1, -1, 0);  // x > 0
//   int y = c.op(sdk::FusedCode::Mul, m, g, -1, 0);
//   c.output(y);
//   c.bind_input(0, view_of_x); c.bind_input(1, view_of_g); c.bind_output(0, view_of_y);
//   c.run();
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plexus/sdk/tanh.hpp"

namespace plexus::sdk {

enum class FusedCode : uint8_t {
  Add, Sub, Mul, Div, PowTT, PowTS, Neg, Abs, Relu, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid,
  Lerp, Addcmul, Addcdiv, GtS, Cast,
  // Gradients of activations (appended: the values above stay as they are).
  ThresholdBackward, SigmoidBackward, TanhBackward
};

// How a catalog op (by its full schema name) becomes an instruction.
struct FusedOp {
  FusedCode code;
  int ntensors;       // tensor operands: schema arguments 0 .. ntensors-1
  int scalar = -1;    // the schema position of its Scalar (alpha, weight, value, exponent)
  bool bool_result = false;  // gt: a mask
};

// The instruction for op `name` ("lerp_.Scalar"), or null when chains do not take it.
inline const FusedOp* fused_op(std::string_view name) {
  using C = FusedCode;
  static const std::unordered_map<std::string, FusedOp> table = [] {
    std::unordered_map<std::string, FusedOp> t;
    for (const char* n : {"add.Tensor", "add_.Tensor"}) t[n] = {C::Add, 2, 2};
    for (const char* n : {"sub.Tensor", "sub_.Tensor"}) t[n] = {C::Sub, 2, 2};
    for (const char* n : {"mul.Tensor", "mul_.Tensor"}) t[n] = {C::Mul, 2};
    for (const char* n : {"div.Tensor", "div_.Tensor"}) t[n] = {C::Div, 2};
    t["pow.Tensor_Tensor"] = {C::PowTT, 2};
    t["pow.Tensor_Scalar"] = {C::PowTS, 1, 1};
    const std::pair<const char*, C> unary[] = {
        {"neg", C::Neg},     {"abs", C::Abs}, {"relu", C::Relu}, {"sqrt", C::Sqrt},
        {"rsqrt", C::Rsqrt}, {"exp", C::Exp}, {"log", C::Log},   {"tanh", C::Tanh},
        {"sigmoid", C::Sigmoid}};
    for (const auto& [n, c] : unary) {
      t[n] = {c, 1};
      t[std::string(n) + "_"] = {c, 1};
    }
    for (const char* n : {"lerp.Scalar", "lerp_.Scalar"}) t[n] = {C::Lerp, 2, 2};
    for (const char* n : {"addcmul", "addcmul_"}) t[n] = {C::Addcmul, 3, 3};
    for (const char* n : {"addcdiv", "addcdiv_"}) t[n] = {C::Addcdiv, 3, 3};
    t["gt.Scalar"] = {C::GtS, 1, 1, true};
    t["to.dtype"] = {C::Cast, 1};
    t["threshold_backward"] = {C::ThresholdBackward, 2, 2};
    t["sigmoid_backward"] = {C::SigmoidBackward, 2};
    t["tanh_backward"] = {C::TanhBackward, 2};
    return t;
  }();
  auto it = table.find(std::string(name));
  return it == table.end() ? nullptr : &it->second;
}

// A matrix product a chain may start with, its other ops then being an
// epilogue over its result: "addmm" (self, mat1, mat2, beta, alpha) and "mm"
// (self, mat2), float32, 2-D. Graph compilers that do not take it say so in
// supports(); the host then runs the product alone and offers the rest.
inline bool is_fused_product(std::string_view name) { return name == "addmm" || name == "mm"; }

namespace detail {
inline float fused_sigmoid(float x) {
  float e = std::exp(-std::abs(x));
  float s = 1.0f / (1.0f + e);
  return x >= 0 ? s : e * s;
}
}  // namespace detail

// One instruction over n elements. Loops vectorize when the file is built
// with -fno-math-errno -fno-trapping-math (nothing here reads errno or the
// floating-point flags); the results do not depend on it.
// Always inlined, so a caller built for another target (a target_clones
// wrapper) gets its own build of these loops.
[[gnu::always_inline]] inline void fused_exec(FusedCode code, float* __restrict d, const float* a,
                                              const float* b, const float* c, float s,
                                              int64_t n) {
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
    case FusedCode::Tanh: for (int64_t i = 0; i < n; ++i) d[i] = tanh_f32(a[i]); break;
    case FusedCode::Sigmoid:
      for (int64_t i = 0; i < n; ++i) d[i] = detail::fused_sigmoid(a[i]);
      break;
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
    case FusedCode::ThresholdBackward:
      for (int64_t i = 0; i < n; ++i) d[i] = b[i] > s ? a[i] : 0.0f;
      break;
    case FusedCode::SigmoidBackward:
      for (int64_t i = 0; i < n; ++i) d[i] = a[i] * b[i] * (1.0f - b[i]);
      break;
    case FusedCode::TanhBackward:
      for (int64_t i = 0; i < n; ++i) d[i] = a[i] * (1.0f - b[i] * b[i]);
      break;
  }
}
using FusedExecFn = void (*)(FusedCode, float*, const float*, const float*, const float*, float,
                             int64_t);

// Memory a chain reads or writes: float32 (or a bool mask) at `data` (element
// [0, ...]), with strides in elements over the chain's shape (0 where broadcast).
struct FusedView {
  void* data = nullptr;
  std::vector<int64_t> strides;
  bool is_bool = false;
};

class FusedChain {
 public:
  static constexpr int64_t kChunk = 512;
  static constexpr size_t kMaxDims = 16;

  explicit FusedChain(std::vector<int64_t> shape) : shape_(std::move(shape)) {
    if (shape_.size() > kMaxDims) throw std::invalid_argument("FusedChain: more than 16 dims");
    numel_ = 1;
    for (int64_t s : shape_) numel_ *= s;
  }

  // A register read from input slot `inputs()` (bound with bind_input).
  int input() {
    int r = nregs_++;
    loads_.push_back({r, {}, false, false});
    return r;
  }
  // A register holding x everywhere.
  int constant(float x) {
    int r = nregs_++;
    constants_.emplace_back(r, x);
    return r;
  }
  // A register computed from up to three registers (-1: unused) and a scalar.
  int op(FusedCode code, int a, int b, int c, float s) {
    int r = nregs_++;
    code_.push_back({code, r, a, b, c, s});
    return r;
  }
  // Register `reg` stored into output slot `outputs()` at the end of each chunk.
  void output(int reg) { stores_.push_back({reg, {}, false, false}); }
  size_t inputs() const { return loads_.size(); }
  size_t outputs() const { return stores_.size(); }
  const std::vector<int64_t>& shape() const { return shape_; }

  void bind_input(size_t slot, FusedView v) { bind(loads_.at(slot), std::move(v)); }
  void bind_output(size_t slot, FusedView v) { bind(stores_.at(slot), std::move(v)); }
  // Moves a bound slot to other memory of the same layout.
  void rebind_input(size_t slot, void* data) { loads_.at(slot).view.data = data; }
  void rebind_output(size_t slot, void* data) { stores_.at(slot).view.data = data; }

  // One pass over memory: every output for every element. Large chains are
  // split over the cores in whole chunks. `exec` runs one instruction (a
  // build of fused_exec for the caller's target).
  void run(FusedExecFn exec = &fused_exec) {
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    constexpr int64_t kParallelElements = int64_t(1) << 18;
    if (main_.data.empty()) main_ = make_regs();
    if (numel_ < kParallelElements || cores == 1) {
      run_range(main_, 0, numel_, exec);
      return;
    }
    const int64_t chunks = (numel_ + kChunk - 1) / kChunk;
    const int64_t per = (chunks + cores - 1) / cores;
    std::vector<std::thread> workers;
    std::exception_ptr error;
    std::mutex error_mutex;
    for (unsigned w = 1; w < cores; ++w) {
      int64_t begin = std::min(numel_, int64_t(w) * per * kChunk);
      int64_t end = std::min(numel_, int64_t(w + 1) * per * kChunk);
      if (begin >= end) break;
      workers.emplace_back([&, begin, end] {
        try {
          Regs regs = make_regs();
          run_range(regs, begin, end, exec);
        } catch (...) {
          std::lock_guard lock(error_mutex);
          error = std::current_exception();
        }
      });
    }
    run_range(main_, 0, std::min(numel_, per * kChunk), exec);
    for (std::thread& t : workers) t.join();
    if (error) std::rethrow_exception(error);
  }

 private:
  struct Access {
    int reg;
    FusedView view;
    bool contiguous;  // row-major over the shape
    bool broadcast;   // one element for all
  };
  struct Instr {
    FusedCode code;
    int dst, a, b, c;
    float s;
  };
  // A register is read through src: its own chunk buffer, or for a row-major
  // input the input's memory at the chunk (no copy). Instructions write only
  // their own new register, never memory a register is read from.
  struct Regs {
    std::vector<float> data;
    std::vector<const float*> src;
    float* at(int r) { return data.data() + static_cast<size_t>(r) * kChunk; }
  };

  void bind(Access& a, FusedView v) {
    if (v.strides.size() != shape_.size())
      throw std::invalid_argument("FusedChain: a view's strides do not match the chain's shape");
    a.view = std::move(v);
    a.contiguous = a.broadcast = true;
    int64_t expect = 1;
    for (size_t d = shape_.size(); d-- > 0;) {
      if (shape_[d] != 1) {
        a.contiguous = a.contiguous && a.view.strides[d] == expect;
        a.broadcast = a.broadcast && a.view.strides[d] == 0;
      }
      expect *= shape_[d];
    }
    if (numel_ <= 1) a.broadcast = false;
  }

  Regs make_regs() const {
    Regs r;
    r.data.assign(static_cast<size_t>(nregs_) * kChunk, 0.0f);
    r.src.resize(static_cast<size_t>(nregs_));
    for (int i = 0; i < nregs_; ++i) r.src[static_cast<size_t>(i)] = r.at(i);
    for (const auto& [reg, x] : constants_) std::fill(r.at(reg), r.at(reg) + kChunk, x);
    return r;
  }

  // Element offsets of chunk [i0, i0 + n) of a view over the shape.
  void offsets(const FusedView& v, int64_t i0, int64_t n, std::vector<int64_t>& out) const {
    const size_t nd = shape_.size();
    int64_t idx[kMaxDims] = {};
    int64_t rest = i0;
    for (size_t d = nd; d-- > 0;) {
      idx[d] = rest % shape_[d];
      rest /= shape_[d];
    }
    out.resize(static_cast<size_t>(n));
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += idx[d] * v.strides[d];
    for (int64_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = off;
      for (size_t d = nd; d-- > 0;) {
        off += v.strides[d];
        if (++idx[d] < shape_[d]) break;
        off -= idx[d] * v.strides[d];
        idx[d] = 0;
      }
    }
  }

  void load(Regs& regs, const Access& a, int64_t i0, int64_t n, std::vector<int64_t>& scratch) {
    float* r = regs.at(a.reg);
    regs.src[static_cast<size_t>(a.reg)] = r;
    if (a.view.is_bool) {
      const bool* base = static_cast<const bool*>(a.view.data);
      if (a.broadcast) {
        std::fill(r, r + n, static_cast<float>(base[0]));
      } else if (a.contiguous) {
        for (int64_t i = 0; i < n; ++i) r[i] = static_cast<float>(base[i0 + i]);  // no branch
      } else {
        offsets(a.view, i0, n, scratch);
        for (int64_t i = 0; i < n; ++i) r[i] = static_cast<float>(base[scratch[size_t(i)]]);
      }
      return;
    }
    const float* base = static_cast<const float*>(a.view.data);
    if (a.contiguous) {
      regs.src[static_cast<size_t>(a.reg)] = base + i0;
    } else if (a.broadcast) {
      std::fill(r, r + n, base[0]);
    } else {
      offsets(a.view, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) r[i] = base[scratch[size_t(i)]];
    }
  }

  void store(Regs& regs, const Access& a, int64_t i0, int64_t n, std::vector<int64_t>& scratch) {
    const float* r = regs.src[static_cast<size_t>(a.reg)];
    if (a.view.is_bool) {
      bool* base = static_cast<bool*>(a.view.data);
      if (a.contiguous) {
        for (int64_t i = 0; i < n; ++i) base[i0 + i] = r[i] != 0.0f;
      } else {
        offsets(a.view, i0, n, scratch);
        for (int64_t i = 0; i < n; ++i) base[scratch[size_t(i)]] = r[i] != 0.0f;
      }
      return;
    }
    float* base = static_cast<float*>(a.view.data);
    if (a.contiguous) {
      std::memcpy(base + i0, r, static_cast<size_t>(n) * sizeof(float));
    } else {
      offsets(a.view, i0, n, scratch);
      for (int64_t i = 0; i < n; ++i) base[scratch[size_t(i)]] = r[i];
    }
  }

  void run_range(Regs& regs, int64_t begin, int64_t end, FusedExecFn exec) {
    std::vector<int64_t> scratch;
    auto in = [&](int r) { return r >= 0 ? regs.src[static_cast<size_t>(r)] : nullptr; };
    for (int64_t i0 = begin; i0 < end; i0 += kChunk) {
      int64_t n = std::min(kChunk, end - i0);
      for (const Access& a : loads_) load(regs, a, i0, n, scratch);
      for (const Instr& ins : code_) {
        float* d = regs.at(ins.dst);
        regs.src[static_cast<size_t>(ins.dst)] = d;
        exec(ins.code, d, in(ins.a), in(ins.b), in(ins.c), ins.s, n);
      }
      for (const Access& a : stores_) store(regs, a, i0, n, scratch);
    }
  }

  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  int nregs_ = 0;
  std::vector<Access> loads_, stores_;
  std::vector<std::pair<int, float>> constants_;
  std::vector<Instr> code_;
  Regs main_;
};

}  // namespace plexus::sdk
