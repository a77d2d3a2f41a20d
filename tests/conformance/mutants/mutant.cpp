// A small float32 backend with one deliberate defect, chosen at compile time
// by PLEXUS_MUTANT (one of the Defect names below), so that the conformance
// suite can be shown to catch it (check_mutants.cmake). kControl has no
// defect and must pass every case it runs. The device is plain host memory
// from malloc, handed to the host as opaque device pointers; kernels:
// add.out, sum.IntList_out and mm.out, float32 only, and copy_ into float32
// (kTruncate16 adds a float16 add.out).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <plexus/plugin.hpp>
#include <string>
#include <thread>
#include <vector>

namespace mutant {
namespace {

namespace sdk = plexus::sdk;

enum class Defect {
  kControl,    // none
  kStrides,    // every operand is addressed as dense row-major (offsets and broadcasting kept)
  kBroadcast,  // an input broadcast along any dim is read as one scalar, its element 0
  kUlp,        // sum results are moved 3 ulp away from zero
  kOverrun,    // add.out also writes the element just past the end of out
  kRace,       // add.out computes into one static scratch buffer shared by every call
  kAlpha,      // add.out ignores alpha
  kAliasOther, // add.out copies self into out first: wrong when out is `other`
  kTruncate16, // also a float16 add.out, whose float32 result is cut toward zero to 16 bits
  kGrid,       // sum writes only its first 65535 outputs: one per block of a grid without a stride loop
  kScalarKind, // add.out reads alpha's double field whatever the Scalar's kind
  kPitch,      // an operand whose innermost stride is 1 is taken as dense (row gaps ignored)
  kDenseOut,   // sum writes its out as dense row-major, whatever out's strides
  kShortK,     // mm sums K in tiles of 1024 and drops what is left after the last whole tile
  kRaceShape,  // add.out keeps its launch size in one global: right while concurrent calls agree
  kDevice0,    // kernels look their tensors up in device 0's memory, whatever the call's device
};
constexpr Defect kDefect = Defect::PLEXUS_MUTANT;

// Each allocation gets this many bytes more than asked for, so an overrunning
// kernel scribbles on memory of ours instead of the C library's heap.
constexpr size_t kSlack = 64;
constexpr size_t kCapacity = size_t{1} << 30;
// Two devices, each with its own memory, as a machine with two GPUs.
constexpr int32_t kDevices = 2;

// Which device each block of memory belongs to. A kernel finds its tensors'
// memory through its call's device, as a GPU kernel runs in that device's
// context; a block of another device is not there (on a GPU: an illegal
// address).
class Owners {
 public:
  void add(const void* p, int32_t device) {
    std::lock_guard lock(mutex_);
    owner_[p] = device;
  }
  void remove(const void* p) {
    std::lock_guard lock(mutex_);
    owner_.erase(p);
  }
  bool on(const void* p, int32_t device) {
    std::lock_guard lock(mutex_);
    auto it = owner_.find(p);
    return it != owner_.end() && it->second == device;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, int32_t> owner_;
};
Owners g_owners;

// Every tensor of a kernel call must be memory of the call's device.
void check_memory(const plexus_kernel_call& call) {
  const int32_t device = kDefect == Defect::kDevice0 ? 0 : call.device_index;
  for (int64_t i = 0; i < call.num_args; ++i) {
    if (call.args[i].tag != PLEXUS_VALUE_TENSOR) continue;
    const plexus_tensor& t = *call.args[i].u.tensor;
    if (t.storage && !g_owners.on(t.storage, device))
      sdk::fail(PLEXUS_ERROR_DEVICE, std::string(PLEXUS_PLUGIN_NAME) + ": argument " +
                                         std::to_string(i) + " is not memory of device " +
                                         std::to_string(device));
  }
}

class MutantBackend : public sdk::Backend<MutantBackend> {
 public:
  int32_t device_count() { return kDevices; }

  void properties(int32_t device, plexus_device_properties& out) {
    check_device(device);
    sdk::copy_string(out.name, (std::string("mutant device (") + PLEXUS_PLUGIN_NAME + ")").c_str());
    sdk::copy_string(out.vendor, "plexus conformance tests");
    out.kind = PLEXUS_DEVICE_KIND_EMULATED;
    out.capabilities = 0;  // synchronous; the host must use the copy functions
    out.total_memory = kCapacity;
    out.dtypes = sdk::kAllDTypes;
  }

  void* allocate(int32_t device, size_t nbytes) {
    check_device(device);
    size_t before = used_.fetch_add(nbytes);
    void* p =
        nbytes <= kCapacity - std::min(before, kCapacity) ? std::malloc(nbytes + kSlack) : nullptr;
    if (!p) {
      used_.fetch_sub(nbytes);
      sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY, std::string(PLEXUS_PLUGIN_NAME) +
                                                ": out of memory for " + std::to_string(nbytes) +
                                                " bytes");
    }
    g_owners.add(p, device);
    return p;
  }
  void deallocate(int32_t, void* ptr, size_t nbytes) {
    g_owners.remove(ptr);
    std::free(ptr);
    used_.fetch_sub(nbytes);
  }
  void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes, void*) {
    check_device(device);
    std::memset(static_cast<char*>(ptr) + offset, value, nbytes);
  }
  void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                           size_t nbytes, void*) {
    check_device(device);
    std::memcpy(static_cast<char*>(dst) + dst_offset, src, nbytes);
  }
  void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                           size_t nbytes, void*) {
    check_device(device);
    std::memcpy(dst, static_cast<const char*>(src) + src_offset, nbytes);
  }
  void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void*) {
    check_device(device);
    std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
                 nbytes);
  }
  void synchronize(int32_t device) { check_device(device); }

 private:
  static void check_device(int32_t device) {
    if (device < 0 || device >= kDevices)
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
                std::string(PLEXUS_PLUGIN_NAME) + " has no device " + std::to_string(device));
  }

  std::atomic<size_t> used_{0};
};

// Row-major strides of a dense tensor of these sizes.
std::vector<int64_t> dense_strides(int32_t ndim, const int64_t* sizes) {
  std::vector<int64_t> s(size_t(ndim), 1);
  for (int32_t d = ndim - 2; d >= 0; --d) s[size_t(d)] = s[size_t(d) + 1] * sizes[d + 1];
  return s;
}

// A float32 operand: a view of the tensor through a copy of its strides,
// which the strides and broadcast defects rewrite.
template <typename T>
class Operand {
 public:
  Operand(const plexus_tensor& t, [[maybe_unused]] bool input)
      : strides_(t.strides, t.strides + t.ndim),
        view_(t.storage ? static_cast<T*>(t.storage) + t.offset : nullptr, t.ndim, t.sizes,
              strides_.data()) {
    if (t.dtype != PLEXUS_DTYPE_F32)
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "mutant kernels take float32 tensors only");
    if constexpr (kDefect == Defect::kPitch) {
      // "Contiguous rows, so contiguous": wrong for a slice of the last dim.
      if (t.ndim >= 1 && t.strides[t.ndim - 1] == 1) {
        int64_t dense = 1;
        for (int32_t d = t.ndim - 1; d >= 0; --d) {
          if (strides_[size_t(d)] == 0) continue;
          strides_[size_t(d)] = dense;
          dense *= t.sizes[d];
        }
      }
    }
    if constexpr (kDefect == Defect::kStrides) {
      int64_t dense = 1;
      for (int32_t d = t.ndim - 1; d >= 0; --d) {
        if (strides_[size_t(d)] == 0) continue;
        strides_[size_t(d)] = dense;
        dense *= t.sizes[d];
      }
    }
    if constexpr (kDefect == Defect::kBroadcast) {
      bool broadcast = false;
      for (int32_t d = 0; d < t.ndim; ++d) broadcast |= t.strides[d] == 0 && t.sizes[d] > 1;
      if (input && broadcast) std::fill(strides_.begin(), strides_.end(), 0);
    }
  }
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;

  const sdk::TensorView<T>& view() const { return view_; }

 private:
  std::vector<int64_t> strides_;
  sdk::TensorView<T> view_;
};

// kTruncate16's float16 add.out: right in every way but the last step, where
// the float32 result is cut toward zero to float16 instead of rounded to
// nearest even: never a whole ulp off, so only exact-valued cases can tell.
void add_f16(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const float alpha = args.scalar(2).to<float>();
  sdk::elementwise(sdk::TensorView<sdk::Half>(args.tensor(3)),
                   sdk::TensorView<const sdk::Half>(args.tensor(0)),
                   sdk::TensorView<const sdk::Half>(args.tensor(1)),
                   [alpha](sdk::Half x, sdk::Half y) {
                     const float r = float(x) + alpha * float(y);
                     sdk::Half h(r);  // nearest even
                     // One step toward zero where that rounded away from it
                     // (the magnitude is the low 15 bits).
                     if (std::isfinite(float(h)) && std::fabs(float(h)) > std::fabs(r))
                       h = sdk::Half::from_bits(uint16_t(h.bits - 1));
                     return h;
                   });
}

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out); the
// host has broadcast self and other to out's shape (stride 0 where broadcast).
void add_out(MutantBackend&, const plexus_kernel_call& call) {
  check_memory(call);
  sdk::Args args(call);
  if constexpr (kDefect == Defect::kTruncate16)
    if (args.tensor(3).dtype == PLEXUS_DTYPE_F16) return add_f16(call);
  Operand<const float> self(args.tensor(0), true), other(args.tensor(1), true);
  Operand<float> out(args.tensor(3), false);
  float alpha = kDefect == Defect::kAlpha ? 1.0f : args.scalar(2).to<float>();
  // A kernel that assumes a floating tensor's alpha is a floating Scalar: an
  // integer alpha's bits read as a double (2 reads as 1e-323, so x + 0 * y).
  if constexpr (kDefect == Defect::kScalarKind) alpha = float(call.args[2].u.scalar.v.f);
  auto add = [alpha](float x, float y) { return x + alpha * y; };

  if constexpr (kDefect == Defect::kRace) {
    // A naive kernel, element by element through linear indices, that sums
    // into one buffer for every call and then copies that to out: two calls
    // at once overwrite each other's sums.
    static float scratch[1 << 20];
    const sdk::TensorView<float>& o = out.view();
    if (o.numel() > int64_t(std::size(scratch)))
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "mutant_race: add.out of more than 2^20 elements");
    for (int64_t i = 0; i < o.numel(); ++i) scratch[i] = add(self.view()[i], other.view()[i]);
    for (int64_t i = 0; i < o.numel(); ++i) o[i] = scratch[i];
  } else if constexpr (kDefect == Defect::kRaceShape) {
    // The launch size (a cached grid) in one global for every call: calls of
    // one size at once agree on it; a call of another size changes it under
    // a running one, which then covers only part of its output.
    static std::atomic<int64_t> launch{0};
    const sdk::TensorView<float>& o = out.view();
    launch.store(o.numel());
    std::this_thread::yield();
    const int64_t n = std::min(launch.load(), o.numel());
    for (int64_t i = 0; i < n; ++i) o[i] = add(self.view()[i], other.view()[i]);
  } else if constexpr (kDefect == Defect::kAliasOther) {
    // out = self, then out += alpha * other: right when out is self or
    // separate, wrong when out is other (other is overwritten first).
    const sdk::TensorView<float>& o = out.view();
    sdk::elementwise(o, self.view(), [](float x) { return x; });
    sdk::elementwise(o, o, other.view(), add);
  } else {
    sdk::elementwise(out.view(), self.view(), other.view(), add);
  }

  if constexpr (kDefect == Defect::kOverrun) {
    // The last element in memory, stored once more one element further on.
    const sdk::TensorView<float>& o = out.view();
    if (o.numel() > 0) {
      int64_t last = 0;
      for (int32_t d = 0; d < o.ndim(); ++d) last += (o.size(d) - 1) * o.stride(d);
      o.data()[last + 1] = o.data()[last];
    }
  }
}

// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *,
//                 ScalarType? dtype=None, Tensor(a!) out): the host passes
// dim as the dims of self to reduce, ascending (all of them for None).
void sum_out(MutantBackend&, const plexus_kernel_call& call) {
  check_memory(call);
  sdk::Args args(call);
  Operand<const float> self_op(args.tensor(0), true);
  Operand<float> out_op(args.tensor(4), false);
  const sdk::TensorView<const float>& self = self_op.view();
  // kDenseOut: "the output is mine, so it is dense", wrong for a view as out.
  const plexus_tensor& out_t = args.tensor(4);
  std::vector<int64_t> out_dense = dense_strides(out_t.ndim, out_t.sizes);
  const sdk::TensorView<float> out =
      kDefect == Defect::kDenseOut
          ? sdk::TensorView<float>(out_op.view().data(), out_t.ndim, out_t.sizes, out_dense.data())
          : out_op.view();
  sdk::Span<int64_t> dims = args.int_list(1);
  const bool keepdim = args.boolean(2);

  // A double accumulator per output element, dense in out's shape, seen from
  // self's shape with stride 0 along the reduced dims.
  std::vector<double> acc(size_t(out.numel()), 0.0);
  std::vector<int64_t> acc_strides = dense_strides(out.ndim(), out.sizes());
  std::vector<int64_t> spread(size_t(self.ndim()), 0);
  for (int32_t d = 0, od = 0, r = 0; d < self.ndim(); ++d) {
    bool reduced = r < dims.size() && dims[r] == d;
    if (reduced) ++r;
    if (!reduced) spread[size_t(d)] = acc_strides[size_t(od)];
    if (!reduced || keepdim) ++od;
  }
  sdk::TensorView<double> sums(acc.data(), self.ndim(), self.sizes(), spread.data());
  sdk::for_each(sums, self, [](double& a, float x) { a += x; });

  sdk::TensorView<const double> result(acc.data(), out.ndim(), out.sizes(), acc_strides.data());
  if constexpr (kDefect == Defect::kGrid) {
    // As a kernel with one block per output and a grid of at most 65535
    // blocks would: the outputs past the grid are never written.
    for (int64_t i = 0; i < std::min<int64_t>(out.numel(), 65535); ++i)
      out[i] = static_cast<float>(result[i]);
    return;
  }
  sdk::elementwise(out, result, [](double v) {
    float f = static_cast<float>(v);
    if constexpr (kDefect == Defect::kUlp) {
      const float away = std::signbit(f) ? -std::numeric_limits<float>::infinity()
                                         : std::numeric_limits<float>::infinity();
      for (int k = 0; k < 3; ++k) f = std::nextafter(f, away);
    }
    return f;
  });
}

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): [m, k] @ [k, n], each
// output a double sum over k, any strides.
void mm_out(MutantBackend&, const plexus_kernel_call& call) {
  check_memory(call);
  // Plain views: the layout defects are add's and sum's.
  sdk::Args args(call);
  for (int i = 0; i < 3; ++i)
    if (args.tensor(i).dtype != PLEXUS_DTYPE_F32)
      sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "mutant kernels take float32 tensors only");
  const sdk::TensorView<const float> a(args.tensor(0)), b(args.tensor(1));
  const sdk::TensorView<float> out(args.tensor(2));
  int64_t k = a.size(1);
  if constexpr (kDefect == Defect::kShortK) {
    // As a kernel whose K loop runs over whole tiles only would, once K
    // outgrows one tile.
    constexpr int64_t kTile = 1024;
    if (k > kTile) k = k / kTile * kTile;
  }
  for (int64_t i = 0; i < out.size(0); ++i)
    for (int64_t j = 0; j < out.size(1); ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += double(a(i, p)) * double(b(p, j));
      out(i, j) = static_cast<float>(acc);
    }
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) into float32,
// from any dtype: how the host converts a kernel's inputs (sum of float16
// with dtype=float32, ...). Free of the defects, which are add's and sum's.
void copy(MutantBackend&, const plexus_kernel_call& call) {
  check_memory(call);
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& src = args.tensor(1);
  sdk::visit_dtype(src.dtype, [&](auto tag) {
    using From = typename decltype(tag)::type;
    sdk::elementwise(sdk::TensorView<float>(self), sdk::TensorView<const From>(src),
                     [](From x) { return sdk::convert<float>(x); });
  });
}

plexus_status init(const plexus_host_api* host, void** state) {
  return sdk::guard(host, [&] {
    auto* backend = new MutantBackend();
    *state = backend;  // shutdown deletes it, after a failed init too
    backend->register_backend(host, PLEXUS_PLUGIN_NAME);
    const uint32_t f32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
    const uint32_t f16 = kDefect == Defect::kTruncate16 ? PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16) : 0;
    backend->register_kernel<&add_out>("add.out", f32 | f16);
    backend->register_kernel<&sum_out>("sum.IntList_out", f32);
    backend->register_kernel<&mm_out>("mm.out", f32);
    backend->register_kernel<&copy>("copy_", f32);
  });
}

void shutdown(void* state) {
  delete static_cast<MutantBackend*>(state);
}

}  // namespace
}  // namespace mutant

extern "C" PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t, uint32_t) {
  static const plexus_plugin_info info = {
      sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR, PLEXUS_PLUGIN_NAME,
      PLEXUS_PLUGIN_VERSION,      &mutant::init,    &mutant::shutdown};
  return &info;
}
