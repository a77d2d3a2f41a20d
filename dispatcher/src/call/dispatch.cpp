// The engine: op definitions and kernel registration (under a lock, published
// atomically), then every call: its device, its layers, then the backend step.
#include "plexus/dispatcher.h"

#include <fmt/format.h>

#include <bit>

#include "call/state.h"
#include "plexus/error.h"
#include "plexus/log.h"

namespace plexus {

ThreadLayers& thread_layers() {
  // initial-exec: libplexus is linked, never dlopen'ed, so its TLS is static.
  thread_local ThreadLayers t __attribute__((tls_model("initial-exec")));
  return t;
}

Dispatcher::Dispatcher() : state_(std::make_unique<State>()) {}
Dispatcher::~Dispatcher() = default;

Operator& Dispatcher::add_op(std::string_view schema_text) {
  Schema schema = parse_schema(schema_text);
  std::string name = schema.full_name();
  std::unique_lock lock(state_->ops_mutex);
  PLEXUS_CHECK(!state_->by_name.contains(name), ErrorCode::InvalidArgument,
               "op '{}' is already defined", name);
  Operator& op = state_->ops.emplace_back(std::move(schema),
                                          static_cast<uint32_t>(state_->ops.size()));
  state_->by_name.emplace(name, &op);
  return op;
}

namespace {
// The arguments of `a` must start `b`'s, with the same names and base types.
void check_same_leading_args(const Schema& a, const Schema& b, size_t count) {
  PLEXUS_CHECK(b.arguments.size() >= count, ErrorCode::InvalidArgument,
               "schema {} has fewer arguments than {}", b.str(), a.str());
  for (size_t i = 0; i < count; ++i)
    PLEXUS_CHECK(a.arguments[i].name == b.arguments[i].name &&
                     a.arguments[i].type.base == b.arguments[i].type.base,
                 ErrorCode::InvalidArgument,
                 "schemas {} and {} differ at argument {} ('{}' vs '{}')", a.str(), b.str(), i,
                 a.arguments[i].name, b.arguments[i].name);
}

int find_written(const Schema& s) {
  for (size_t i = 0; i < s.arguments.size(); ++i)
    if (s.arguments[i].alias && s.arguments[i].alias->is_write) return static_cast<int>(i);
  return -1;
}
}  // namespace

const Operator& Dispatcher::define(const OpDefinition& def) {
  PLEXUS_CHECK(def.meta != nullptr || (def.inplace.empty() && def.out.empty()),
               ErrorCode::InvalidArgument,
               "an op with an out or in-place schema needs a meta function ({}{})",
               def.out, def.inplace);
  Operator* out = def.out.empty() ? nullptr : &add_op(def.out);
  Operator* inplace = def.inplace.empty() ? nullptr : &add_op(def.inplace);
  Operator* fn = def.functional.empty() ? nullptr : &add_op(def.functional);
  Operator* kernel_op = out ? out : inplace;
  auto setup = [&](Operator* op, OpKind kind) {
    if (!op) return;
    op->kind_ = kind;
    op->meta_ = def.meta;
    op->composite_ = def.composite;
    op->catalog_dtypes_ = def.dtypes;
    op->elementwise_ = def.elementwise;
    op->cross_device_ = def.cross_device;
    op->idempotent_ = def.idempotent;
    op->kernel_op_ = kernel_op ? kernel_op : op;
    op->written_arg_ = find_written(op->schema_);
  };
  if (def.meta == nullptr) {
    setup(fn, OpKind::Direct);
    return *fn;
  }
  setup(out, OpKind::Out);
  setup(inplace, OpKind::Inplace);
  setup(fn, OpKind::Functional);
  if (out) {
    PLEXUS_CHECK(out->written_arg_ >= 0 && out->schema_.arguments[out->written_arg_].kwarg_only,
                 ErrorCode::InvalidArgument, "out schema {} needs a keyword-only Tensor(a!) out",
                 out->schema_.str());
    size_t n = out->schema_.arguments.size() - 1;
    if (fn) check_same_leading_args(fn->schema_, out->schema_, n);
    if (inplace) check_same_leading_args(inplace->schema_, out->schema_, n);
  }
  if (inplace)
    PLEXUS_CHECK(inplace->written_arg_ == 0, ErrorCode::InvalidArgument,
                 "in-place schema {} must write its first argument", inplace->schema_.str());
  return fn ? *fn : out ? *out : *inplace;
}

const Operator& Dispatcher::define_direct(std::string_view schema, KernelFn composite,
                                          DirectCheckFn check, DTypeSet dtypes) {
  Operator& op = add_op(schema);
  op.composite_ = composite;
  op.check_ = check;
  op.catalog_dtypes_ = dtypes;
  op.written_arg_ = find_written(op.schema_);
  return op;
}

const Operator* Dispatcher::find_op(std::string_view name) const {
  std::shared_lock lock(state_->ops_mutex);
  auto it = state_->by_name.find(std::string(name));
  return it == state_->by_name.end() ? nullptr : it->second;
}

const Operator& Dispatcher::op(std::string_view name) const {
  if (const Operator* o = find_op(name)) return *o;
  std::string base(name.substr(0, name.find('.')));
  std::vector<std::string> similar;
  for (const Operator* o : ops())
    if (o->schema().name == base || o->schema().name == base + "_") similar.push_back(o->name());
  if (similar.empty())
    fail(ErrorCode::NotFound, "unknown op '{}' (`plexus ops` lists them all)", name);
  fail(ErrorCode::NotFound, "unknown op '{}'; ops named like it: {}", name,
       fmt::join(similar, ", "));
}

std::vector<const Operator*> Dispatcher::ops() const {
  std::shared_lock lock(state_->ops_mutex);
  std::vector<const Operator*> all;
  for (const Operator& o : state_->ops) all.push_back(&o);
  return all;
}

void Dispatcher::register_kernel(std::string_view op_name, DeviceType backend, KernelFn fn,
                                 void* ctx, DTypeSet dtypes, std::string_view source,
                                 bool replace) {
  PLEXUS_CHECK(fn != nullptr, ErrorCode::InvalidArgument, "kernel for '{}' is null", op_name);
  PLEXUS_CHECK(backend < kMaxDeviceTypes, ErrorCode::InvalidArgument,
               "backend slot {} is out of range", backend);
  PLEXUS_CHECK(!dtypes.empty(), ErrorCode::InvalidArgument,
               "kernel for '{}' on {} lists no dtypes", op_name, device_type_name(backend));
  Operator* op = const_cast<Operator*>(&this->op(op_name));
  PLEXUS_CHECK(op->kind_ == OpKind::Out || op->kind_ == OpKind::Direct ||
                   (op->kind_ == OpKind::Inplace && &op->kernel_op() == op),
               ErrorCode::InvalidArgument,
               "kernels are registered on '{}', not on '{}': backends implement the out variant",
               op->kernel_op().name(), op->name());
  std::lock_guard lock(state_->kernels_mutex);
  const KernelEntry* old = op->kernels_[backend].load(std::memory_order_relaxed);
  PLEXUS_CHECK(old == nullptr || replace, ErrorCode::InvalidArgument,
               "{} already has a kernel for '{}' (from {})", device_type_name(backend), op_name,
               old ? old->source : "");
  std::string_view src = state_->sources.emplace_back(source);
  const KernelEntry& e = state_->entries.emplace_back(KernelEntry{fn, ctx, dtypes, src});
  op->kernels_[backend].store(&e, std::memory_order_release);
}

void Dispatcher::unregister_kernel(std::string_view op_name, DeviceType backend) {
  Operator* op = const_cast<Operator*>(&this->op(op_name));
  std::lock_guard lock(state_->kernels_mutex);
  op->kernels_[backend].store(nullptr, std::memory_order_release);
}

void Dispatcher::unregister_backend(DeviceType backend) {
  std::lock_guard lock(state_->kernels_mutex);
  std::shared_lock ops_lock(state_->ops_mutex);
  for (Operator& op : state_->ops) op.kernels_[backend].store(nullptr, std::memory_order_release);
}

void Dispatcher::set_layer_kernel(Layer layer, LayerFn fn, void* ctx) {
  std::lock_guard lock(state_->kernels_mutex);
  state_->layer_ctx[static_cast<int>(layer)] = ctx;
  state_->layer_fns[static_cast<int>(layer)].store(fn, std::memory_order_release);
}

void Dispatcher::enable_layer(Layer layer, bool on) {
  if (on) state_->enabled_layers.fetch_or(layer_bit(layer));
  else state_->enabled_layers.fetch_and(~layer_bit(layer));
}

bool Dispatcher::layer_enabled(Layer layer) const {
  return state_->enabled_layers.load() & layer_bit(layer);
}

namespace {
// The device of a call: that of its first tensor argument that is not a
// scalar-like 0-d cpu tensor; every other tensor must be there too.
Device call_device(const Operator& op, std::span<const Value> args) {
  // copy_ runs where it writes, whatever its source's device (even a 0-d cpu self).
  if (op.cross_device() && !args.empty() && args[0].is_tensor()) return args[0].to_tensor().device();
  const Tensor* first = nullptr;
  const Tensor* first_scalar = nullptr;
  auto visit = [&](const Tensor& t, size_t i) {
    bool scalar_like = t.dim() == 0 && t.device().is_cpu();
    if (scalar_like) {
      if (!first_scalar) first_scalar = &t;
      return;
    }
    if (!first) {
      first = &t;
      return;
    }
    if (t.device() != first->device() && !op.cross_device())
      fail_arg(op.schema().arguments[i].name,
               "expected all tensors on {} (the device of the first tensor argument), found one "
               "on {}; move it with .to()",
               first->device().str(), t.device().str());
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].tag() == Value::Tag::Tensor) visit(args[i].to_tensor(), i);
    else if (args[i].tag() == Value::Tag::TensorList)
      for (const Tensor& t : args[i].to_tensor_list()) visit(t, i);
  }
  if (first) return first->device();
  if (first_scalar) return first_scalar->device();
  return Device();
}

void check_arity(const Operator& op, std::span<const Value> args) {
  PLEXUS_CHECK(args.size() == op.schema().arguments.size(), ErrorCode::InvalidArgument,
               "expected {} arguments ({}), got {}", op.schema().arguments.size(),
               op.schema().str(), args.size());
}
}  // namespace

Tensor Dispatcher::call(const Operator& op, std::span<const Value> args) {
  try {
    check_arity(op, args);
    ThreadLayers& tl = thread_layers();
    DispatchKeys keys;
    keys.layers = (state_->enabled_layers.load(std::memory_order_relaxed) | tl.include) &
                  ~tl.exclude;
    keys.device = call_device(op, args);
    return redispatch(op, keys, args);
  } catch (const Error& e) {
    if (!e.context().op.empty()) throw;
    throw e.with_context({op.name(), "", "", ""});
  }
}

Tensor Dispatcher::redispatch(const Operator& op, DispatchKeys keys, std::span<const Value> args) {
  while (keys.layers != 0) {
    int layer = std::countr_zero(keys.layers);
    keys.layers &= ~(1u << layer);
    LayerFn fn = state_->layer_fns[layer].load(std::memory_order_acquire);
    if (fn) return fn(state_->layer_ctx[layer], op, keys, args, static_cast<Layer>(layer));
  }
  return run_backend(*state_, op, keys.device, args);
}

LayerGuard::LayerGuard(Layer layer, Mode mode) {
  ThreadLayers& tl = thread_layers();
  saved_include_ = tl.include;
  saved_exclude_ = tl.exclude;
  if (mode == Mode::Include) {
    tl.include |= layer_bit(layer);
    tl.exclude &= ~layer_bit(layer);
  } else {
    tl.exclude |= layer_bit(layer);
  }
}

LayerGuard::~LayerGuard() {
  ThreadLayers& tl = thread_layers();
  tl.include = saved_include_;
  tl.exclude = saved_exclude_;
}

}  // namespace plexus
