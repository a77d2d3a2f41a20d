// The host side of the plugin ABI: the plexus_host_api table each plugin is
// given, and what it does with what the plugin registers.
#include "plugin/plugin_host.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "call/host_kernels.h"
#include "plexus/allocator.h"
#include "plexus/dispatcher.h"
#include "plexus/factories.h"
#include "plexus/log.h"
#include "plugin/plugin_backend.h"
#include "plugin/trampoline.h"

namespace plexus {

// ABI codes and core enums share their numbers; this is where that is checked.
static_assert(static_cast<int>(ErrorCode::IoError) == PLEXUS_ERROR_IO);
static_assert(static_cast<int>(ErrorCode::Unsupported) == PLEXUS_ERROR_UNSUPPORTED);
static_assert(static_cast<int>(DType::F64) == PLEXUS_DTYPE_F64);
static_assert(static_cast<int>(DType::BF16) == PLEXUS_DTYPE_BF16);
static_assert(kNumDTypes == PLEXUS_NUM_DTYPES);

struct HostContext {
  PluginInstance* plugin;
  plexus_host_api api{};
  std::deque<PluginKernel> kernels;                      // stable addresses
  std::vector<std::pair<std::string, DeviceType>> registered;  // (op, slot) for undo
  bool in_init = false;
  // Set when init ran past its time limit: the registration callbacks, which
  // hold init_mutex, refuse from then on (the stuck thread may resume later).
  bool abandoned = false;
  std::mutex init_mutex;
  spdlog::logger* logger = nullptr;
  std::string directory;  // of the plugin's library
};

namespace {

HostContext& host_of(void* host_ctx) { return *static_cast<HostContext*>(host_ctx); }

// Runs f; an Error becomes its status, and its message becomes the thread's
// plugin error message, so a plugin that returns the status passes the
// host's reason on.
template <typename F>
plexus_status guarded(HostContext& h, const char* what, F&& f) {
  try {
    f();
    return PLEXUS_OK;
  } catch (const Error& e) {
    h.logger->debug("{}: {}", what, e.what());
    // One line for records and `plexus doctor` (a schema error adds a caret diagram).
    std::string m = e.what();
    set_plugin_error_message(m.substr(0, m.find('\n')));
    return static_cast<plexus_status>(e.code());
  } catch (const std::exception& e) {
    h.logger->error("{}: {}", what, e.what());
    set_plugin_error_message(e.what());
    return PLEXUS_ERROR_INTERNAL;
  }
}

// Graph compilers by device type (the cpu's too, whose DeviceBackend stays
// the core's): set at registration, cleared when the plugin goes.
std::array<std::atomic<const plexus_graph_extension*>, kMaxDeviceTypes> g_graph_compilers{};

// Held by a registration callback for its whole call: checks that the
// plugin is inside an init the host still waits for.
class InitCall {
 public:
  InitCall(HostContext& h, const char* fn) : lock_(h.init_mutex) {
    PLEXUS_CHECK(!h.abandoned, ErrorCode::InvalidArgument,
                 "plugin '{}' called {} after the host gave up waiting for its init",
                 h.plugin->name, fn);
    PLEXUS_CHECK(h.in_init, ErrorCode::InvalidArgument,
                 "plugin '{}' called {} outside its init function", h.plugin->name, fn);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

plexus_status host_register_backend(void* ctx, const plexus_backend* table, int32_t* out_slot) {
  HostContext& h = host_of(ctx);
  return guarded(h, "register_backend", [&] {
    InitCall in_init(h, "register_backend");
    PLEXUS_CHECK(table != nullptr && out_slot != nullptr, ErrorCode::InvalidArgument,
                 "plugin '{}': register_backend got a null table or slot pointer", h.plugin->name);
    std::string name = table->name ? table->name : "";
    auto backend = std::make_shared<PluginBackend>(*table, h.plugin->name);  // validates
    DeviceType slot = register_device_type(name);
    PLEXUS_CHECK(slot == kCPU || find_device_backend(slot) == nullptr,
                 ErrorCode::InvalidArgument,
                 "plugin '{}': device type '{}' is already provided by another plugin",
                 h.plugin->name, name);
    // Host memory stays the core's: a cpu plugin brings kernels, not an allocator.
    if (slot != kCPU) set_device_backend(slot, backend);
    g_graph_compilers[slot].store(backend->graph_extension(), std::memory_order_release);
    h.plugin->device_types.push_back(slot);
    *out_slot = slot;
  });
}

plexus_status host_register_kernel(void* ctx, int32_t slot, const char* op, uint32_t mask,
                                   plexus_kernel_fn fn, void* user_data) {
  HostContext& h = host_of(ctx);
  return guarded(h, "register_kernel", [&] {
    InitCall in_init(h, "register_kernel");
    PLEXUS_CHECK(op != nullptr && fn != nullptr, ErrorCode::InvalidArgument,
                 "plugin '{}': register_kernel got a null op name or function", h.plugin->name);
    bool own = std::find(h.plugin->device_types.begin(), h.plugin->device_types.end(), slot) !=
               h.plugin->device_types.end();
    PLEXUS_CHECK(own, ErrorCode::InvalidArgument,
                 "plugin '{}': slot {} is not a device type it registered", h.plugin->name, slot);
    PLEXUS_CHECK((mask >> PLEXUS_NUM_DTYPES) == 0 && mask != 0, ErrorCode::InvalidArgument,
                 "plugin '{}': dtype mask {:#x} for '{}' is empty or has unknown bits",
                 h.plugin->name, mask, op);
    Dispatcher& d = Dispatcher::get();
    // The core's own cpu kernels (copy_, fill_) give way to a plugin's.
    const KernelEntry* existing = d.op(op).kernel(static_cast<DeviceType>(slot));
    bool replace = existing && existing->source == kHostKernelSource;
    PluginKernel& k = h.kernels.emplace_back(PluginKernel{fn, user_data, h.plugin->name});
    d.register_kernel(op, static_cast<DeviceType>(slot), kernel_trampoline, &k,
                      DTypeSet::from_bits(mask), h.plugin->name + " plugin", replace);
    h.registered.emplace_back(op, static_cast<DeviceType>(slot));
    h.plugin->kernel_count++;
  });
}

plexus_status host_define_op(void* ctx, const char* schema_text) {
  HostContext& h = host_of(ctx);
  return guarded(h, "define_op", [&] {
    InitCall in_init(h, "define_op");
    PLEXUS_CHECK(schema_text != nullptr, ErrorCode::InvalidArgument,
                 "define_op got a null schema");
    std::string_view text(schema_text);
    // Ops outlive their plugin (callers may hold them), so a plugin loaded
    // again finds its ops already there: the same schema is accepted as is.
    Schema schema = parse_schema(text);
    PLEXUS_CHECK(schema.ns == h.plugin->name, ErrorCode::InvalidArgument,
                 "plugin '{}': op '{}' must be in the plugin's own namespace ('{}::name(...)')",
                 h.plugin->name, schema.full_name(), h.plugin->name);
    Dispatcher& d = Dispatcher::get();
    if (const Operator* old = d.find_op(schema.full_name())) {
      PLEXUS_CHECK(old->schema().str() == schema.str(), ErrorCode::InvalidArgument,
                   "plugin '{}': op '{}' is already defined as {}", h.plugin->name,
                   schema.full_name(), old->schema().str());
    } else {
      d.define_direct(text);
    }
    h.plugin->defined_ops.push_back(schema.full_name());
  });
}

void host_log(void* ctx, int32_t level, const char* message) {
  HostContext& h = host_of(ctx);
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::trace, spdlog::level::debug, spdlog::level::info, spdlog::level::warn,
      spdlog::level::err};
  auto lvl = level >= 0 && level <= 4 ? kLevels[level] : spdlog::level::info;
  h.logger->log(lvl, "{}", message ? message : "");
}

void host_set_error_message(void*, const char* message) {
  set_plugin_error_message(message ? message : "");
}

plexus_status host_alloc_output(void* ctx, const plexus_kernel_call* c, plexus_dtype dtype,
                                int32_t ndim, const int64_t* sizes, plexus_tensor* out) {
  HostContext& h = host_of(ctx);
  return guarded(h, "alloc_output", [&] {
    PLEXUS_CHECK(c != nullptr && c->host_call != nullptr && out != nullptr && ndim >= 0 &&
                     (ndim == 0 || sizes != nullptr) && dtype >= 0 && dtype < PLEXUS_NUM_DTYPES,
                 ErrorCode::InvalidArgument,
                 "plugin '{}': alloc_output needs a kernel call, dtype, sizes and an out pointer",
                 h.plugin->name);
    KernelCall& call = *static_cast<KernelCall*>(c->host_call);
    PLEXUS_CHECK(!call.result.defined(), ErrorCode::InvalidArgument,
                 "plugin '{}': alloc_output called twice in one call of '{}'", h.plugin->name,
                 call.op.name());
    call.result = empty(IntArrayRef(sizes, static_cast<size_t>(ndim)),
                        {static_cast<DType>(dtype), call.device});
    *out = to_abi_tensor(call.result);
  });
}

const char* host_get_option(void* ctx, const char* key) {
  HostContext& h = host_of(ctx);
  if (!key) return nullptr;
  auto it = h.plugin->options.find(key);
  return it == h.plugin->options.end() ? nullptr : it->second.c_str();
}

const char* host_plugin_directory(void* ctx) { return host_of(ctx).directory.c_str(); }

// Removes everything the plugin registered; used on a failed init and at shutdown.
void unregister_all(PluginInstance& p) {
  Dispatcher& d = Dispatcher::get();
  for (auto& [op, slot] : p.ctx->registered) d.unregister_kernel(op, slot);
  p.ctx->registered.clear();
  restore_host_kernels(d);
  for (DeviceType slot : p.device_types) {
    g_graph_compilers[slot].store(nullptr, std::memory_order_release);
    if (slot == kCPU) continue;
    release_allocators(slot);
    set_device_backend(slot, nullptr);
  }
  p.device_types.clear();
}

}  // namespace

const plexus_graph_extension* graph_compiler(DeviceType type) {
  return type < kMaxDeviceTypes ? g_graph_compilers[type].load(std::memory_order_acquire) : nullptr;
}

PluginInstance::PluginInstance() = default;
PluginInstance::~PluginInstance() = default;
PluginInstance::PluginInstance(PluginInstance&&) noexcept = default;
PluginInstance& PluginInstance::operator=(PluginInstance&&) noexcept = default;

namespace {
// After init returned `st`: on failure undoes what it registered, calls the
// plugin's shutdown, and throws its error.
void finish_init(PluginInstance& p, plexus_status st) {
  if (st == PLEXUS_OK) return;
  Error e = plugin_error(st, p.name, "init");
  unregister_all(p);
  if (p.info->shutdown) p.info->shutdown(p.state);
  p.state = nullptr;
  throw e;
}
}  // namespace

void init_plugin(PluginInstance& p, std::chrono::milliseconds timeout) {
  PLEXUS_CHECK(p.info != nullptr && p.info->init != nullptr, ErrorCode::InvalidArgument,
               "plugin '{}' has no init function", p.name);
  p.ctx = std::make_unique<HostContext>();
  HostContext& h = *p.ctx;
  h.plugin = &p;
  h.logger = &logging::get("plugin." + p.name);
  h.api.struct_size = sizeof(plexus_host_api);
  h.api.abi_major = PLEXUS_ABI_MAJOR;
  h.api.abi_minor = PLEXUS_ABI_MINOR;
  h.api.host_ctx = &h;
  h.api.register_backend = host_register_backend;
  h.api.register_kernel = host_register_kernel;
  h.api.define_op = host_define_op;
  h.api.log = host_log;
  h.api.set_error_message = host_set_error_message;
  h.api.alloc_output = host_alloc_output;
  h.api.get_option = host_get_option;
  h.api.plugin_directory = host_plugin_directory;
  h.directory = std::filesystem::path(p.library).parent_path().string();

  h.in_init = true;
  if (timeout.count() <= 0) {     // no time limit: init runs on this thread
    take_plugin_error_message();  // start clean
    plexus_status st = p.info->init(&h.api, &p.state);
    h.in_init = false;
    finish_init(p, st);
    return;
  }
  // init runs on a thread of its own, so that one that never returns (a
  // driver waiting on hardware that is gone) costs the host `timeout`, not
  // the process. Its status and error message come back through `done`.
  auto done = std::make_shared<std::promise<std::pair<plexus_status, std::string>>>();
  std::future<std::pair<plexus_status, std::string>> result = done->get_future();
  std::thread worker([done, info = p.info, api = &h.api, state = &p.state] {
    take_plugin_error_message();  // start clean
    plexus_status st = info->init(api, state);
    done->set_value({st, take_plugin_error_message()});
  });
  if (result.wait_for(timeout) != std::future_status::ready) {
    worker.detach();  // it may never end; it owns nothing the host frees
    // The thread may still register things later: refuse them, undo what is
    // registered. A thread stuck inside a callback holds the mutex; then its
    // registrations stay and the error says so.
    // Tried for up to a second. A loop of try_lock, not a timed_mutex's
    // try_lock_for: that waits in pthread_mutex_clocklock, which GCC 12's
    // ThreadSanitizer does not intercept (it then reports the unlock).
    std::unique_lock lock(h.init_mutex, std::defer_lock);
    bool undone = lock.try_lock();
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
         !undone && std::chrono::steady_clock::now() < until; undone = lock.try_lock())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    h.abandoned = true;
    h.in_init = false;
    p.abandoned = true;
    if (undone) unregister_all(p);
    fail(ErrorCode::DeviceError,
         "plugin '{}': init did not return within {} ms (plugins.init_timeout_ms); the host "
         "stopped waiting{}, and keeps its library loaded because a thread is still inside it",
         p.name, timeout.count(),
         undone ? " and undid what it had registered"
                : ", but could not undo its registrations: the thread is stuck inside a host "
                  "call");
  }
  // Joined, not detached: a thread still exiting when the process exits
  // trips leak checkers (LeakSanitizer's tracer crashed on one under load).
  worker.join();
  auto [st, message] = result.get();
  {
    std::lock_guard lock(h.init_mutex);
    h.in_init = false;
  }
  set_plugin_error_message(std::move(message));
  finish_init(p, st);
}

void shutdown_plugin(PluginInstance& p) {
  for (DeviceType slot : p.device_types) {
    if (slot == kCPU) continue;
    size_t live = live_bytes(slot);
    PLEXUS_CHECK(live == 0, ErrorCode::InvalidArgument,
                 "cannot unload plugin '{}': tensors holding {} bytes on {} are still alive; "
                 "destroy them first",
                 p.name, live, device_type_name(slot));
  }
  for (DeviceType slot : p.device_types) {
    if (slot == kCPU) continue;
    if (DeviceBackend* b = find_device_backend(slot)) {
      if (auto* pb = dynamic_cast<PluginBackend*>(b); pb && !pb->used()) continue;
      int n = b->device_count();
      for (int i = 0; i < n; ++i) {
        try {
          b->synchronize(i);
        } catch (const Error& e) {
          logging::get("loader").warn("synchronizing {}:{} before unload failed: {}",
                                  device_type_name(slot), i, e.what());
        }
      }
    }
  }
  if (p.ctx) unregister_all(p);
  if (p.info && p.info->shutdown) p.info->shutdown(p.state);
  p.state = nullptr;
}

}  // namespace plexus
