#include "runtime_checks.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/storage.h"

namespace plexus::conformance {

namespace {

using Bytes = std::vector<uint8_t>;

Bytes random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(g());
  return b;
}

// Raw device memory from the backend itself (not the caching allocator), freed on scope exit.
class Buffer {
 public:
  Buffer(const Target& tg, size_t n) : tg_(tg), n_(n), p_(tg.backend->allocate(tg.device.index, n)) {}
  ~Buffer() { tg_.backend->deallocate(tg_.device.index, p_, n_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return p_; }
  size_t size() const { return n_; }
  void write(const Bytes& b, size_t offset = 0, void* stream = nullptr) const {
    tg_.backend->copy_from_host_on(tg_.device.index, p_, offset, b.data(), b.size(), stream);
  }
  Bytes read(size_t offset, size_t n, void* stream = nullptr) const {
    Bytes b(n);
    tg_.backend->copy_to_host_on(tg_.device.index, b.data(), p_, offset, n, stream);
    return b;
  }
  Bytes read_all() const { return read(0, n_); }

 private:
  const Target& tg_;
  size_t n_;
  void* p_;
};

// "" when `got` equals `want`, else where they first differ.
std::string diff(const Bytes& got, const Bytes& want, const std::string& what) {
  if (got.size() != want.size()) return fmt::format("{}: {} bytes, expected {}", what, got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k] != want[k])
      return fmt::format("{}: byte {} is {:#04x}, expected {:#04x}", what, k, got[k], want[k]);
  return "";
}

#define RETURN_IF(s)               \
  do {                             \
    std::string e_ = (s);          \
    if (!e_.empty()) return e_;    \
  } while (0)

// ---- the checks --------------------------------------------------------------------

std::string check_properties(const Target& tg) {
  int n = tg.backend->device_count();
  if (n < 1) return fmt::format("device_count() is {}", n);
  if (tg.backend->device_count() != n) return "device_count() changed between two calls";
  for (int i = 0; i < n; ++i) {
    DeviceProperties p = tg.backend->properties(i);
    if (p.name.empty()) return fmt::format("device {}: empty name", i);
    for (unsigned char c : p.name + p.vendor)
      if (c < 0x20 || c == 0x7f) return fmt::format("device {}: control character in name or vendor", i);
    if (p.kind != "cpu" && p.kind != "gpu" && p.kind != "accelerator" && p.kind != "emulated")
      return fmt::format("device {}: kind '{}' is not cpu, gpu, accelerator or emulated", i, p.kind);
    if (p.total_memory != 0 && p.total_memory < (1u << 20))
      return fmt::format("device {}: total_memory {} bytes (under 1 MiB; report 0 when unknown)", i, p.total_memory);
  }
  if (Device::parse(tg.device.str()) != tg.device) return "device name '" + tg.device.str() + "' does not parse back";
  return "";
}

Tensor upload(const Target& tg, const Tensor& host) {
  Tensor d = empty(host.sizes(), TensorOptions(host.dtype(), tg.device));
  if (host.nbytes()) tg.backend->copy_from_host(tg.device.index, d.storage()->data(), 0, host.data_ptr(), host.nbytes());
  return d;
}

std::string check_alloc_zero(const Target& tg) {
  for (auto sizes : {std::vector<int64_t>{0}, std::vector<int64_t>{0, 7}, std::vector<int64_t>{5, 0, 3}}) {
    Tensor t = empty(sizes, TensorOptions(DType::F32, tg.device));
    if (t.numel() != 0 || t.device() != tg.device) return "empty(" + shape_str(sizes) + ") is not an empty tensor on the device";
    Tensor h = t.to(Device());
    if (h.numel() != 0 || h.sizes().size() != sizes.size()) return "copying an empty tensor to the host changed its shape";
  }
  return "";
}

std::string check_alloc_too_big(const Target& tg) {
  size_t mem = tg.backend->properties(tg.device.index).total_memory;
  size_t n = std::max<size_t>(mem > (size_t{1} << 58) ? mem : mem * 4, size_t{1} << 44);  // 16 TiB at least
  try {
    Tensor t = empty({static_cast<int64_t>(n)}, TensorOptions(DType::U8, tg.device));
    return fmt::format("allocating {} bytes succeeded (the device reports {} bytes); expected an OutOfMemory error", n, mem);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfMemory)
      return fmt::format("allocating {} bytes failed with {} instead of OutOfMemory: {}", n, error_code_name(e.code()), e.what());
  }
  // The device must still work afterwards.
  Buffer b(tg, 1 << 20);
  Bytes data = random_bytes(b.size(), 7);
  b.write(data);
  return diff(b.read_all(), data, "after the failed allocation, a 1 MiB round trip");
}

std::string check_copies(const Target& tg) {
  const size_t sizes[] = {1, 3, 7, 64, 1001, 65537};
  const size_t offsets[] = {0, 1, 3, 7};
  const size_t cap = 65537 + 16;
  Buffer a(tg, cap), b(tg, cap);
  uint64_t seed = 1;
  for (size_t n : sizes) {
    for (size_t off : offsets) {
      std::string where = fmt::format("{} bytes at offset {}", n, off);
      Bytes base_a = random_bytes(cap, seed++), base_b = random_bytes(cap, seed++), src = random_bytes(n, seed++);
      a.write(base_a);
      b.write(base_b);
      // host -> device
      a.write(src, off);
      Bytes want = base_a;
      std::memcpy(want.data() + off, src.data(), n);
      RETURN_IF(diff(a.read_all(), want, "host to device, " + where));
      // device -> host, into a buffer with guard bytes on both sides
      Bytes host(n + 32, 0xEE);
      tg.backend->copy_to_host(tg.device.index, host.data() + 16, a.get(), off, n);
      Bytes host_want(n + 32, 0xEE);
      std::memcpy(host_want.data() + 16, src.data(), n);
      RETURN_IF(diff(host, host_want, "device to host (16 guard bytes each side), " + where));
      // device -> device, to another odd offset
      size_t off2 = (off * 5 + 2) % 9;
      tg.backend->copy_on_device(tg.device.index, b.get(), off2, a.get(), off, n);
      Bytes want_b = base_b;
      std::memcpy(want_b.data() + off2, src.data(), n);
      RETURN_IF(diff(b.read_all(), want_b, fmt::format("device to device, {} to offset {}", where, off2)));
    }
  }
  return "";
}

std::string check_memset(const Target& tg) {
  const size_t cap = 4099;
  Buffer a(tg, cap);
  for (auto [off, n, value] : {std::tuple<size_t, size_t, int>{0, 1, 0}, {3, 17, 0xAB}, {1, 4097, 0x7F}, {5, 0, 1}}) {
    Bytes base = random_bytes(cap, off + n);
    a.write(base);
    tg.backend->memset_on(tg.device.index, a.get(), off, value, n, nullptr);
    Bytes want = base;
    std::memset(want.data() + off, value, n);
    RETURN_IF(diff(a.read_all(), want, fmt::format("memset of {} bytes at offset {} to {:#x}", n, off, value)));
  }
  return "";
}

// Streams and events as RAII handles.
struct Stream {
  const Target& tg;
  void* s;
  explicit Stream(const Target& t) : tg(t), s(t.backend->create_stream(t.device.index)) {}
  ~Stream() { tg.backend->destroy_stream(tg.device.index, s); }
};
struct Event {
  const Target& tg;
  void* e;
  explicit Event(const Target& t) : tg(t), e(t.backend->create_event(t.device.index)) {}
  ~Event() { tg.backend->destroy_event(tg.device.index, e); }
};

std::string check_streams(const Target& tg) {
  if (!tg.backend->has_streams()) throw NotApplicable{"the backend has no streams"};
  const size_t n = 4u << 20;
  Buffer x(tg, n), y(tg, n), z(tg, n);
  Stream s1(tg), s2(tg);
  for (int round = 0; round < 4; ++round) {
    // Within one stream: later work sees earlier work.
    Bytes p = random_bytes(n, 100 + static_cast<uint64_t>(round));
    tg.backend->memset_on(tg.device.index, x.get(), 0, 0x11, n, s1.s);
    x.write(p, 0, s1.s);
    tg.backend->copy_on_device_on(tg.device.index, y.get(), 0, x.get(), 0, n, s1.s);
    RETURN_IF(diff(y.read(0, n, s1.s), p, fmt::format("round {}: memset, copy in, copy across, copy out on one stream", round)));
    if (!tg.backend->has_events()) continue;
    // Across streams: s2 waits for an event recorded on s1.
    Bytes q = random_bytes(n, 200 + static_cast<uint64_t>(round));
    Event e(tg);
    x.write(q, 0, s1.s);
    tg.backend->copy_on_device_on(tg.device.index, y.get(), 0, x.get(), 0, n, s1.s);
    tg.backend->record_event(tg.device.index, e.e, s1.s);
    tg.backend->wait_event(tg.device.index, e.e, s2.s);
    tg.backend->copy_on_device_on(tg.device.index, z.get(), 0, y.get(), 0, n, s2.s);
    RETURN_IF(diff(z.read(0, n, s2.s), q, fmt::format("round {}: a copy on stream 2 after waiting for stream 1's event", round)));
    tg.backend->synchronize_stream(tg.device.index, s1.s);
    tg.backend->synchronize_stream(tg.device.index, s2.s);
  }
  return "";
}

std::string check_events(const Target& tg) {
  if (!tg.backend->has_events()) throw NotApplicable{"the backend has no events"};
  const size_t n = 1u << 20;
  Buffer x(tg, n), y(tg, n);
  Bytes p = random_bytes(n, 300);
  Event e(tg);
  x.write(p, 0, nullptr);
  tg.backend->copy_on_device_on(tg.device.index, y.get(), 0, x.get(), 0, n, nullptr);
  tg.backend->record_event(tg.device.index, e.e, nullptr);
  tg.backend->synchronize_event(tg.device.index, e.e);
  RETURN_IF(diff(y.read_all(), p, "after synchronizing an event recorded behind a copy"));
  // Re-recording the same event is allowed.
  tg.backend->record_event(tg.device.index, e.e, nullptr);
  tg.backend->synchronize_event(tg.device.index, e.e);
  return "";
}

std::string check_synchronize(const Target& tg) {
  const size_t n = 1u << 20;
  Buffer x(tg, n), y(tg, n);
  tg.backend->synchronize(tg.device.index);  // idle
  Bytes p = random_bytes(n, 400);
  x.write(p);
  for (int k = 0; k < 8; ++k) tg.backend->copy_on_device_on(tg.device.index, y.get(), 0, x.get(), 0, n, nullptr);
  tg.backend->synchronize(tg.device.index);
  tg.backend->synchronize(tg.device.index);
  Bytes got(n);
  tg.backend->copy_to_host(tg.device.index, got.data(), y.get(), 0, n);
  return diff(got, p, "after synchronize");
}

// An error raised inside a kernel must reach the caller with the plugin's own message.
std::string check_kernel_error(const Target& tg) {
  Dispatcher& d = Dispatcher::get();
  DeviceType type = tg.device.type;
  auto has = [&](const char* op, DType dt) {
    const Operator* o = d.find_op(op);
    const KernelEntry* e = o ? o->kernel(type) : nullptr;
    return e && e->dtypes.contains(dt);
  };
  std::function<void()> call;
  std::string what;
  if (has("embedding.out", DType::F32)) {
    what = "embedding with index 1000 into a 4-row weight";
    call = [&] {
      Tensor w = upload(tg, zeros({4, 3}, TensorOptions(DType::F32)));
      Tensor i = upload(tg, tensor<int64_t>({0, 1000}));
      embedding(w, i);
    };
  } else if (has("div.out_mode", DType::I32)) {
    what = "integer division by zero";
    call = [&] {
      Tensor a = upload(tg, tensor<int32_t>({1, 2}));
      Tensor b = upload(tg, tensor<int32_t>({1, 0}));
      div(a, b, std::string("trunc"));
    };
  } else {
    throw NotApplicable{"the plugin registers neither embedding.out for float32 nor div.out_mode for int32"};
  }
  try {
    call();
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.find("without a message") != std::string::npos)
      return what + ": the kernel failed without setting a message (use set_error_message): " + m;
    if (m.find("plugin '") == std::string::npos)
      return what + ": the error does not carry the plugin's message: " + m;
    return "";
  } catch (const std::exception& e) {
    return what + ": a non-plexus exception escaped: " + e.what();
  }
  return what + ": the call succeeded; expected an error from the kernel";
}

struct Check {
  const char* name;
  std::string (*fn)(const Target&);
};
const Check kChecks[] = {
    {"properties", check_properties},     {"alloc_zero", check_alloc_zero},
    {"alloc_too_big", check_alloc_too_big}, {"copies", check_copies},
    {"memset", check_memset},             {"streams", check_streams},
    {"events", check_events},             {"synchronize", check_synchronize},
    {"kernel_error", check_kernel_error}, {"graph_chains", check_graph_chains},
    {"graph_seed_step", check_graph_seed_step}, {"graph_backward", check_graph_backward},
};

}  // namespace

std::vector<std::string> runtime_check_ids() {
  std::vector<std::string> v;
  for (const Check& c : kChecks) v.push_back(std::string("runtime/") + c.name);
  return v;
}

std::vector<Result> run_runtime_checks(const Target& tg, const std::string& filter) {
  std::vector<Result> out;
  for (const Check& c : kChecks) {
    Result r{.op = "runtime", .dtype = "-", .name = c.name};
    if (!glob_match(filter, r.id())) continue;
    auto t0 = std::chrono::steady_clock::now();
    try {
      r.message = c.fn(tg);
      r.status = r.message.empty() ? Status::Pass : Status::Fail;
    } catch (const NotApplicable& n) {
      r.status = Status::Unsupported;
      r.message = n.why;
    } catch (const std::exception& e) {
      r.status = Status::Fail;
      r.message = std::string("failed: ") + e.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.push_back(r);
  }
  return out;
}

}  // namespace plexus::conformance
