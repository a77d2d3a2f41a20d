// The host side of the plugin ABI, driven by a plugin compiled into this test
// (no dlopen): what the plugin sees through plexus_host_api, and what the
// host does with what it registers.
#include <catch2/catch.hpp>

#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <type_traits>
#include <vector>

#include "plexus/allocator.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/dtype_dispatch.h"
#include "plexus/log.h"
#include "plexus/ops.h"
#include "plexus/plugin.h"
#include "plugin/plugin_host.h"
#include "support/error_of.h"
#include "support/test_backend.h"

using namespace plexus;
using namespace plexus::testing;

namespace {

// ---- A small plugin written only against plugin.h ----------------------

// Device memory is an arena of blocks addressed by handle (1-based index
// cast to a pointer), so the host cannot mistake it for host memory.
struct Arena {
  std::vector<std::vector<unsigned char>> blocks;
  unsigned char* at(void* handle, size_t offset) {
    return blocks.at(reinterpret_cast<uintptr_t>(handle) - 1).data() + offset;
  }
};
Arena arena;
const plexus_host_api* host = nullptr;
int32_t slot = -1;
std::string last_op_seen;
std::vector<int64_t> last_strides_seen;
bool fail_init = false;

int32_t dev_count(void*) { return 1; }
plexus_status props(void*, int32_t, plexus_device_properties* p) {
  std::strcpy(p->name, "host test device");
  std::strcpy(p->vendor, "plexus tests");
  p->kind = PLEXUS_DEVICE_KIND_EMULATED;
  p->total_memory = 1 << 20;
  return PLEXUS_OK;
}
plexus_status alloc(void*, int32_t, size_t n, void** out) {
  if (n > (1u << 24)) {
    host->set_error_message(host->host_ctx, "hosttest: arena is only 16 MiB");
    return PLEXUS_ERROR_OUT_OF_MEMORY;
  }
  arena.blocks.emplace_back(n);
  *out = reinterpret_cast<void*>(arena.blocks.size());
  return PLEXUS_OK;
}
void dealloc(void*, int32_t, void*, size_t) {}
plexus_status mset(void*, int32_t, void* p, size_t off, int32_t v, size_t n, void*) {
  std::memset(arena.at(p, off), v, n);
  return PLEXUS_OK;
}
plexus_status h2d(void*, int32_t, void* dst, size_t off, const void* src, size_t n, void*) {
  std::memcpy(arena.at(dst, off), src, n);
  return PLEXUS_OK;
}
plexus_status d2h(void*, int32_t, void* dst, const void* src, size_t off, size_t n, void*) {
  std::memcpy(dst, arena.at(const_cast<void*>(src), off), n);
  return PLEXUS_OK;
}
plexus_status d2d(void*, int32_t, void* dst, size_t doff, const void* src, size_t soff, size_t n,
                  void*) {
  std::memcpy(arena.at(dst, doff), arena.at(const_cast<void*>(src), soff), n);
  return PLEXUS_OK;
}
plexus_status sync(void*, int32_t) { return PLEXUS_OK; }

plexus_backend backend_table() {
  plexus_backend b{};
  b.struct_size = sizeof(plexus_backend);
  b.name = "hosttest";
  b.device_count = dev_count;
  b.get_properties = props;
  b.allocate = alloc;
  b.deallocate = dealloc;
  b.memset = mset;
  b.copy_host_to_device = h2d;
  b.copy_device_to_host = d2h;
  b.copy_device_to_device = d2d;
  b.synchronize = sync;
  return b;
}
plexus_backend table = backend_table();

float* f32(const plexus_tensor& t) {
  return reinterpret_cast<float*>(arena.at(t.storage, 0)) + t.offset;
}

// Calls f(element offset of a, of b, of o) for every element of o, whose
// sizes a and b share, in row-major order.
template <typename F>
void for_each_element(const plexus_tensor& a, const plexus_tensor& b, const plexus_tensor& o, F f) {
  std::vector<int64_t> idx(o.ndim, 0);
  int64_t n = 1;
  for (int d = 0; d < o.ndim; ++d) n *= o.sizes[d];
  for (int64_t k = 0; k < n; ++k) {
    int64_t oa = 0, ob = 0, oo = 0;
    for (int d = 0; d < o.ndim; ++d) {
      oa += idx[d] * a.strides[d];
      ob += idx[d] * b.strides[d];
      oo += idx[d] * o.strides[d];
    }
    f(oa, ob, oo);
    for (int d = o.ndim - 1; d >= 0; --d) {
      if (++idx[d] < o.sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// add.out for f32 over any strides: out[i] = self[i] + alpha * other[i].
plexus_status add_kernel(void*, const plexus_kernel_call* c) {
  last_op_seen = c->op;
  const plexus_tensor& a = *c->args[0].u.tensor;
  const plexus_tensor& b = *c->args[1].u.tensor;
  double alpha = c->args[2].u.scalar.kind == PLEXUS_SCALAR_FLOAT ? c->args[2].u.scalar.v.f
                                                                 : double(c->args[2].u.scalar.v.i);
  const plexus_tensor& o = *c->args[3].u.tensor;
  last_strides_seen.assign(b.strides, b.strides + b.ndim);
  for_each_element(a, b, o, [&](int64_t oa, int64_t ob, int64_t oo) {
    f32(o)[oo] = f32(a)[oa] + float(alpha) * f32(b)[ob];
  });
  return PLEXUS_OK;
}

// copy_ into float32 (its dtype mask is the destination's): any source dtype
// reaches it, and it declines all but float32 (ABI 1.2), so the host converts.
plexus_status copy_kernel(void*, const plexus_kernel_call* c) {
  last_op_seen = c->op;
  const plexus_tensor& self = *c->args[0].u.tensor;
  const plexus_tensor& src = *c->args[1].u.tensor;
  if (src.dtype != PLEXUS_DTYPE_F32) {
    host->set_error_message(host->host_ctx, "hosttest copies float32 only");
    return PLEXUS_KERNEL_DECLINED;
  }
  for_each_element(src, src, self, [&](int64_t os, int64_t, int64_t oo) {
    f32(self)[oo] = f32(src)[os];
  });
  return PLEXUS_OK;
}

plexus_status failing_kernel(void*, const plexus_kernel_call* c) {
  host->set_error_message(host->host_ctx, "hosttest: mul is broken on purpose");
  return PLEXUS_ERROR_DEVICE;
}

// hosttest::double_it(Tensor self) -> Tensor: a plugin-defined op that
// allocates its own result (contiguous f32 input).
plexus_status double_it(void*, const plexus_kernel_call* c) {
  const plexus_tensor& x = *c->args[0].u.tensor;
  plexus_tensor out;
  plexus_status st = host->alloc_output(host->host_ctx, c, PLEXUS_DTYPE_F32, x.ndim, x.sizes, &out);
  if (st != PLEXUS_OK) return st;
  int64_t n = 1;
  for (int d = 0; d < x.ndim; ++d) n *= x.sizes[d];
  for (int64_t i = 0; i < n; ++i) f32(out)[i] = 2 * f32(x)[i];
  return PLEXUS_OK;
}

plexus_status init(const plexus_host_api* h, void** state) {
  host = h;
  if (fail_init) {
    h->register_backend(h->host_ctx, &table, &slot);
    h->set_error_message(h->host_ctx, "hosttest: no device today");
    return PLEXUS_ERROR_DEVICE;
  }
  plexus_status st = h->register_backend(h->host_ctx, &table, &slot);
  if (st != PLEXUS_OK) return st;
  uint32_t f32_mask = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
  if ((st = h->register_kernel(h->host_ctx, slot, "add.out", f32_mask, add_kernel, nullptr)))
    return st;
  if ((st = h->register_kernel(h->host_ctx, slot, "mul.out", f32_mask, failing_kernel, nullptr)))
    return st;
  if ((st = h->register_kernel(h->host_ctx, slot, "copy_", f32_mask, copy_kernel, nullptr)))
    return st;
  if ((st = h->define_op(h->host_ctx, "hosttest::double_it(Tensor self) -> Tensor"))) return st;
  if ((st = h->register_kernel(h->host_ctx, slot, "hosttest::double_it", f32_mask, double_it,
                               nullptr)))
    return st;
  const char* opt = h->get_option(h->host_ctx, "greeting");
  h->log(h->host_ctx, PLEXUS_LOG_DEBUG, opt ? opt : "no greeting");
  *state = &arena;
  return PLEXUS_OK;
}

int shutdowns = 0;
void shutdown(void* state) {
  if (state == &arena || state == nullptr) shutdowns++;
}

const plexus_plugin_info info = {sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR,
                                 "hosttest", "0.1", init, shutdown};

PluginInstance make_instance() {
  PluginInstance p;
  p.name = "hosttest";
  p.version = "0.1";
  p.info = &info;
  p.options["greeting"] = "hello";
  p.library = "/opt/vendor/plugins/libplexus-hosttest.so";
  return p;
}

}  // namespace

TEST_CASE("a plugin's backend and kernels serve ops on its device", "[plugin-host]") {
  PluginInstance p = make_instance();
  init_plugin(p);
  REQUIRE(p.device_types.size() == 1);
  CHECK(device_type_name(p.device_types[0]) == "hosttest");
  CHECK(p.kernel_count == 4);
  CHECK(std::string(host->plugin_directory(host->host_ctx)) == "/opt/vendor/plugins");
  CHECK(std::string(host->get_option(host->host_ctx, "greeting")) == "hello");
  CHECK(host->get_option(host->host_ctx, "nope") == nullptr);
  Device dev = Device::parse("hosttest:0");
  CHECK(find_device_backend(dev.type)->properties(0).kind == "emulated");

  {
    Tensor a = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).to(dev);
    Tensor b = tensor<float>({10, 20, 30}, {3}).to(dev);
    Tensor c = add(a, b, 2);
    CHECK(last_op_seen == "add.out");
    CHECK(last_strides_seen == std::vector<int64_t>{0, 1});  // broadcast reaches the kernel as stride 0
    CHECK(c.device() == dev);
    CHECK(c.tolist<float>() == std::vector<float>{21, 42, 63, 24, 45, 66});

    SECTION("the plugin's error message reaches the caller with the op and device") {
      Error e = error_of([&] { mul(a, a); });
      CHECK(e.code() == ErrorCode::DeviceError);
      CHECK_THAT(e.what(), Catch::Contains("mul is broken on purpose") &&
                               Catch::Contains("hosttest:0"));
    }
    SECTION("allocation failures come back as out-of-memory with the plugin's message") {
      Error e = error_of([&] { empty({1 << 23}, {DType::F32, dev}); });
      CHECK(e.code() == ErrorCode::OutOfMemory);
      CHECK_THAT(e.what(), Catch::Contains("arena is only 16 MiB"));
    }
    SECTION("a plugin-defined op allocates its own result") {
      const Operator& op = Dispatcher::get().op("hosttest::double_it");
      Value args[] = {Value::tensor(a)};
      Tensor r = Dispatcher::get().call(op, args);
      CHECK(r.device() == dev);
      CHECK(r.tolist<float>() == std::vector<float>{2, 4, 6, 8, 10, 12});
    }
    SECTION("unloading is refused while tensors live on the device") {
      CHECK_THROWS_WITH(shutdown_plugin(p), Catch::Contains("still alive"));
    }
  }
  int before = shutdowns;
  shutdown_plugin(p);
  CHECK(shutdowns == before + 1);
  CHECK(find_device_backend(dev.type) == nullptr);
  CHECK(Dispatcher::get().op("add.out").kernel(dev.type) == nullptr);
}

// What the dispatcher's logger writes while alive.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    logging::get("dispatcher").sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto& sinks = logging::get("dispatcher").sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

// add.out on the cpu for the fallback, 1-D, alpha 1, arithmetic dtypes.
void host_add(void*, KernelCall& call) {
  const Tensor &a = call.args[0].to_tensor(), &b = call.args[1].to_tensor();
  const Tensor& o = call.args[3].to_tensor();
  visit_dtype(o.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T>)
      for (int64_t k = 0; k < o.numel(); ++k)
        static_cast<T*>(o.data_ptr())[k * o.stride(0)] =
            static_cast<T>(static_cast<const T*>(a.data_ptr())[k * a.stride(0)] +
                           static_cast<const T*>(b.data_ptr())[k * b.stride(0)]);
  });
}

TEST_CASE("the fallback warns once per op and dtype, naming both", "[plugin-host]") {
  PluginInstance p = make_instance();
  init_plugin(p);
  Device dev = Device::parse("hosttest:0");
  {
    ScopedKernel cpu_add("add.out", kCPU, host_add, {DType::F64, DType::I32});
    LogCapture log;
    Tensor d = tensor<double>({1, 2}, {2}).to(dev);
    Tensor n = tensor<int32_t>({1, 2}, {2}).to(dev);
    CHECK(add(d, d).tolist<double>() == std::vector<double>{2, 4});  // float32 kernel only
    CHECK(add(d, d).tolist<double>() == std::vector<double>{2, 4});
    CHECK(add(n, n).tolist<int32_t>() == std::vector<int32_t>{2, 4});
    std::string text = log.text();
    CHECK_THAT(text, Catch::Contains("hosttest has no kernel for 'add.out' for float64; running "
                                     "it on the cpu"));
    CHECK_THAT(text, Catch::Contains("hosttest has no kernel for 'add.out' for int32"));
    CHECK(text.find("for float64") == text.rfind("for float64"));  // once
    Tensor i = tensor<int64_t>({3, -4}, {2}).to(dev);
    (void)i.to(DType::F32);
    CHECK_THAT(log.text(), Catch::Contains("hosttest's kernel for 'copy_' declined a float32 "
                                           "call (hosttest copies float32 only)"));
  }
  shutdown_plugin(p);
}

namespace {
uint64_t fallbacks_of(const std::string& op, const std::string& backend) {
  for (const FallbackCount& f : Dispatcher::get().fallback_counts())
    if (f.op == op && f.backend == backend) return f.count;
  return 0;
}
}  // namespace

TEST_CASE("a kernel that declines a call hands it to the fallback policy", "[plugin-host]") {
  PluginInstance p = make_instance();
  init_plugin(p);
  Device dev = Device::parse("hosttest:0");
  {
    Tensor f = tensor<float>({1.5f, -2.0f}, {2}).to(dev);
    Tensor i = tensor<int64_t>({3, -4}, {2}).to(dev);
    Tensor out = empty({2}, {DType::F32, dev});
    last_op_seen.clear();
    out.copy_(f);  // its own kernel takes it
    CHECK(last_op_seen == "copy_");
    CHECK(out.tolist<float>() == std::vector<float>{1.5f, -2.0f});
    const uint64_t before = fallbacks_of("copy_", "hosttest");
    out.copy_(i);  // declined: the cpu converts it
    CHECK(out.tolist<float>() == std::vector<float>{3.0f, -4.0f});
    CHECK(fallbacks_of("copy_", "hosttest") == before + 1);
    CHECK(i.to(DType::F32).tolist<float>() == std::vector<float>{3.0f, -4.0f});

    Dispatcher::get().set_fallback_policy(FallbackPolicy::Error);
    Error e = error_of([&] { out.copy_(i); });
    Dispatcher::get().set_fallback_policy(FallbackPolicy::Cpu);
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK_THAT(e.what(), Catch::Contains("hosttest's kernel for 'copy_' declined") &&
                             Catch::Contains("hosttest copies float32 only") &&
                             Catch::Contains("policy is 'error'"));
  }
  shutdown_plugin(p);
}

TEST_CASE("a failed init is undone and its message kept", "[plugin-host]") {
  fail_init = true;
  PluginInstance p = make_instance();
  int before = shutdowns;
  Error e = error_of([&] { init_plugin(p); });
  fail_init = false;
  CHECK(e.code() == ErrorCode::DeviceError);
  CHECK_THAT(e.what(), Catch::Contains("plugin 'hosttest'") &&
                           Catch::Contains("no device today"));
  CHECK(shutdowns == before + 1);
  CHECK(find_device_backend(*find_device_type("hosttest")) == nullptr);
  // The name is free again for a later, working load.
  PluginInstance again = make_instance();
  init_plugin(again);
  CHECK(find_device_backend(*find_device_type("hosttest")) != nullptr);
  shutdown_plugin(again);
}

TEST_CASE("the host refuses bad registrations with the reason", "[plugin-host]") {
  PluginInstance p = make_instance();
  init_plugin(p);
  const plexus_host_api* h = host;
  int32_t s2 = -1;
  // Outside init, registration is refused.
  CHECK(h->register_kernel(h->host_ctx, slot, "sub.out", 1u << PLEXUS_DTYPE_F32, add_kernel,
                           nullptr) == PLEXUS_ERROR_INVALID_ARGUMENT);
  CHECK(h->register_backend(h->host_ctx, &table, &s2) == PLEXUS_ERROR_INVALID_ARGUMENT);
  shutdown_plugin(p);

  SECTION("a backend table missing required functions") {
    static plexus_backend broken;
    broken = backend_table();
    broken.name = "hosttest_broken";
    broken.copy_device_to_host = nullptr;
    static const plexus_plugin_info bad_info = {
        sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR, "broken", "0",
        [](const plexus_host_api* hh, void**) {
          int32_t s;
          return hh->register_backend(hh->host_ctx, &broken, &s);
        },
        nullptr};
    PluginInstance b;
    b.name = "broken";
    b.info = &bad_info;
    Error e = error_of([&] { init_plugin(b); });
    CHECK(e.code() == ErrorCode::InvalidArgument);
  }
  SECTION("a graph extension (ABI 1.1) without all its functions") {
    static plexus_graph_extension ext{};
    ext.header.struct_size = sizeof(plexus_graph_extension);
    ext.header.type = PLEXUS_EXTENSION_GRAPH;
    ext.supports = [](void*, const plexus_graph*, uint8_t*) -> plexus_status { return PLEXUS_OK; };
    ext.compile = [](void*, const plexus_graph*, void**) -> plexus_status { return PLEXUS_OK; };
    // no run, no release
    static plexus_backend with_ext;
    with_ext = backend_table();
    with_ext.name = "hosttest_graph";
    with_ext.extensions = &ext.header;
    static const plexus_plugin_info bad_info = {
        sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR, "broken", "0",
        [](const plexus_host_api* hh, void**) {
          int32_t s;
          return hh->register_backend(hh->host_ctx, &with_ext, &s);
        },
        nullptr};
    PluginInstance b;
    b.name = "broken";
    b.info = &bad_info;
    Error e = error_of([&] { init_plugin(b); });
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("graph extension must provide supports, compile, run and release"));
  }
  SECTION("a kernel on the functional op instead of the out variant") {
    static const plexus_plugin_info bad_info = {
        sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR, "hosttest", "0",
        [](const plexus_host_api* hh, void**) {
          int32_t s;
          plexus_status st = hh->register_backend(hh->host_ctx, &table, &s);
          if (st) return st;
          return hh->register_kernel(hh->host_ctx, s, "add.Tensor", 1u << PLEXUS_DTYPE_F32,
                                     add_kernel, nullptr);
        },
        nullptr};
    PluginInstance b;
    b.name = "hosttest";
    b.info = &bad_info;
    Error e = error_of([&] { init_plugin(b); });
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK(find_device_backend(*find_device_type("hosttest")) == nullptr);
  }
}
