// plexus::compile: a cache of input signatures, each capturing until two
// captures agree, then replaying its Plan.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <list>
#include <mutex>
#include <optional>

#include "capture.h"
#include "passes.h"
#include "plan.h"
#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/log.h"

namespace plexus::graph {
namespace {

spdlog::logger& log() { return logging::get("graph"); }

struct InputKey {
  DType dtype;
  Device device;
  Shape sizes, strides;
  bool requires_grad;
  bool operator==(const InputKey&) const = default;
};

struct Signature {
  std::vector<InputKey> inputs;
  bool grad_enabled;
  // requires_grad of each tensor CompileOptions::names names (a model's
  // parameters): freezing or unfreezing one changes what the graph does.
  std::vector<bool> names_grad;
  bool operator==(const Signature&) const = default;
};

Signature signature_of(std::span<const Tensor> inputs,
                       const std::vector<std::pair<std::string, Tensor>>& names) {
  Signature s{{}, autograd::is_grad_enabled(), {}};
  s.names_grad.reserve(names.size());
  for (const auto& [name, t] : names) s.names_grad.push_back(t.defined() && t.requires_grad());
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      s.inputs.push_back({DType::F32, Device(), {}, {}, false});
      continue;
    }
    s.inputs.push_back({t.dtype(), t.device(), Shape(t.sizes().begin(), t.sizes().end()),
                        Shape(t.strides().begin(), t.strides().end()), t.requires_grad()});
  }
  return s;
}

std::string signature_str(const Signature& s) {
  std::vector<std::string> parts;
  for (const InputKey& k : s.inputs)
    parts.push_back(fmt::format("{}{}{}{}", dtype_name(k.dtype), shape_str(k.sizes),
                                k.device.is_cpu() ? "" : " on " + k.device.str(),
                                k.requires_grad ? " requires_grad" : ""));
  size_t frozen = 0;
  for (bool g : s.names_grad) frozen += !g;
  return fmt::format("({}){}{}", fmt::join(parts, ", "), s.grad_enabled ? "" : " no_grad",
                     frozen == 0 ? "" : fmt::format(" ({} of {} named tensors without grad)",
                                                    frozen, s.names_grad.size()));
}

bool print_requested(const CompileOptions& o) {
  if (o.print) return true;
  const char* env = std::getenv("PLEXUS_PRINT_GRAPHS");
  return env && *env && std::string_view(env) != "0";
}

// The plans of a differentiable graph. A forward replay borrows one until
// its backward has run without retain_graph (or its results' autograd node
// is gone): the backward reads the forward's memory. Calls whose backward is
// still pending make more plans.
class PlanPool {
 public:
  PlanPool(std::unique_ptr<Plan> first, bool plugin_compilers)
      : plugin_compilers_(plugin_compilers) {
    plans_.push_back(std::move(first));
    lent_.push_back(false);
  }
  const Graph& graph() const { return plans_.front()->graph(); }
  size_t borrow() {
    {
      std::lock_guard lock(mutex_);
      for (size_t k = 0; k < plans_.size(); ++k)
        if (!lent_[k]) {
          lent_[k] = true;
          return k;
        }
    }
    auto plan = std::make_unique<Plan>(graph(), plugin_compilers_);
    std::lock_guard lock(mutex_);
    plans_.push_back(std::move(plan));
    lent_.push_back(true);
    return plans_.size() - 1;
  }
  Plan& plan(size_t k) {
    std::lock_guard lock(mutex_);
    return *plans_[k];
  }
  void give_back(size_t k) {
    std::lock_guard lock(mutex_);
    lent_[k] = false;
  }

 private:
  bool plugin_compilers_;
  mutable std::mutex mutex_;
  std::deque<std::unique_ptr<Plan>> plans_;
  std::vector<bool> lent_;
};

// The autograd node of a compiled function's results: one gradient slot per
// result that requires grad; its backward replays the graph's backward part
// on the plan the forward ran on.
class CompiledBackward final : public autograd::Node {
 public:
  struct Slot {
    Shape sizes;
    DType dtype;
    Device device;
  };
  CompiledBackward(std::shared_ptr<PlanPool> pool, size_t plan, std::vector<Slot> slots,
                   std::vector<autograd::Edge> edges)
      : pool_(std::move(pool)), plan_(plan), slots_(std::move(slots)) {
    next_ = std::move(edges);
  }
  ~CompiledBackward() override { release(); }
  std::string name() const override { return "CompiledFunctionBackward"; }
  uint32_t num_inputs() const override { return static_cast<uint32_t>(slots_.size()); }
  std::vector<Tensor> apply(const Tensor& grad) override {
    std::vector<Tensor> g{grad};
    return apply_slots(g);
  }
  std::vector<Tensor> apply_slots(std::vector<Tensor>& grads) override {
    PLEXUS_CHECK(!released_, ErrorCode::InvalidArgument,
                 "{}: trying to backward through the compiled function a second time (its "
                 "saved values were freed); pass retain_graph=true to the first backward",
                 name());
    for (size_t k = 0; k < slots_.size(); ++k)
      if (k >= grads.size() || !grads[k].defined()) {
        if (grads.size() <= k) grads.resize(k + 1);
        grads[k] = zeros(slots_[k].sizes, {slots_[k].dtype, slots_[k].device});
      }
    return pool_->plan(plan_).run_backward(grads);
  }
  void release() override {
    if (released_) return;
    released_ = true;
    pool_->give_back(plan_);
  }

 private:
  std::shared_ptr<PlanPool> pool_;
  size_t plan_;
  std::vector<Slot> slots_;
  bool released_ = false;
};

struct Entry {
  Signature sig;
  std::optional<Graph> last;  // the previous capture, waiting for one that agrees
  int captures = 0;
  std::unique_ptr<Plan> plan;
  std::shared_ptr<PlanPool> pool;  // a differentiable graph's plans (then `plan` is null)
  std::optional<Graph> captured;  // the plan's graph as captured, for verify_every
  std::string eager_reason;
  uint64_t replays = 0;
};

}  // namespace

struct CompiledFunction::Impl {
  Fn fn;
  CompileOptions options;
  std::list<Entry> entries;  // most recently used first
  CompileStats stats;
  const Entry* last = nullptr;

  Entry& find(const Signature& sig) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (it->sig == sig) {
        entries.splice(entries.begin(), entries, it);
        return entries.front();
      }
    if (!entries.empty()) {
      ++stats.recaptures;
      log().info("{}: new input signature {} (cached: {}); capturing", options.name,
                 signature_str(sig), signature_str(entries.front().sig));
    }
    if (entries.size() >= std::max<size_t>(options.cache_size, 1)) {
      log().info("{}: cache full ({} signatures); dropping {}", options.name, entries.size(),
                 signature_str(entries.back().sig));
      entries.pop_back();
    }
    entries.push_front(Entry{sig, std::nullopt, 0, nullptr, nullptr, std::nullopt, "", 0});
    return entries.front();
  }

  std::vector<Tensor> capture(Entry& e, std::span<const Tensor> inputs) {
    ++stats.captures;
    std::vector<Tensor> out;
    Graph g;
    std::string broken;
    {
      Capture cap(inputs, options);
      out = fn(inputs);
      broken = cap.broken();
      if (broken.empty()) {
        // Results that require grad, of a function that did not run backward
        // itself: their backward becomes part of the graph.
        if (autograd::is_grad_enabled() && cap.grad_leaves().empty()) cap.differentiate(out);
        // A function that set gradients returns its results without history
        // on every call, as its replays must.
        if (!cap.grad_leaves().empty())
          for (Tensor& t : out)
            if (t.defined() && t.requires_grad()) t = t.detach();
        g = cap.finish(out);
        broken = cap.broken();
      }
    }
    if (!broken.empty()) {
      e.eager_reason = fmt::format("the graph breaks: {}", broken);
      log().warn("{}: runs eagerly for inputs {}: {}", options.name, signature_str(e.sig),
                 e.eager_reason);
      e.last.reset();
      e.plan.reset();
      e.pool.reset();
      return out;
    }
    if (e.plan || e.pool) {  // a verification capture
      std::string d = Graph::diff(*e.captured, g);
      if (!d.empty()) {
        e.eager_reason = fmt::format("a verifying capture differs from the compiled graph: {}", d);
        log().warn("{}: runs eagerly from now on: {}", options.name, e.eager_reason);
        e.plan.reset();
        e.pool.reset();
      }
      return out;
    }
    std::string d = e.last ? Graph::diff(*e.last, g) : "this is the first capture";
    if (d.empty()) {
      if (options.verify_every > 0) e.captured = g;
      PassStats passes = optimize(g);
      log().debug(
          "{}: passes folded {} constant ops, removed {} repeated and {} dead ops, "
          "fused {}",
          options.name, passes.folded, passes.cse, passes.dce, passes.fused);
      if (options.backend) options.backend(g);
      if (print_requested(options))
        std::printf("%s: graph for inputs %s (%zu ops)\n%s", options.name.c_str(),
                    signature_str(e.sig).c_str(), g.num_calls(), g.str().c_str());
      try {
        auto plan = std::make_unique<Plan>(std::move(g), options.plugin_compilers);
        log().debug("{}: compiled {} ops ({} resolved once) for inputs {}", options.name,
                    plan->graph().num_calls(), plan->prepared(), signature_str(e.sig));
        if (plan->graph().differentiable())
          e.pool = std::make_shared<PlanPool>(std::move(plan), options.plugin_compilers);
        else
          e.plan = std::move(plan);
      } catch (const Error& err) {
        e.eager_reason = fmt::format("the graph cannot be compiled: {}", err.what());
        log().warn("{}: runs eagerly for inputs {}: {}", options.name, signature_str(e.sig),
                   e.eager_reason);
      }
      e.last.reset();
      return out;
    }
    if (++e.captures >= options.max_captures) {
      e.eager_reason = fmt::format("the graph changed in each of {} captures; last change: {}",
                                   e.captures, d);
      log().warn("{}: runs eagerly for inputs {}: {}", options.name, signature_str(e.sig),
                 e.eager_reason);
      e.last.reset();
    } else {
      log().debug("{}: capture {} for inputs {} does not compile yet: {}", options.name,
                  e.captures, signature_str(e.sig), d);
      e.last = std::move(g);
    }
    return out;
  }

  std::vector<Tensor> call(std::span<const Tensor> inputs) {
    // Inside another capture, run plainly so the outer graph records these ops.
    if (Capture::current()) return fn(inputs);
    Entry& e = find(signature_of(inputs, options.names));
    last = &e;
    if (!e.eager_reason.empty()) {
      ++stats.eager_calls;
      return fn(inputs);
    }
    if (e.plan || e.pool) {
      ++e.replays;
      if (options.verify_every <= 0 ||
          e.replays % static_cast<uint64_t>(options.verify_every) != 0) {
        ++stats.replays;
        return e.pool ? replay_differentiable(e.pool, inputs) : e.plan->run(inputs);
      }
    }
    return capture(e, inputs);
  }

  // Runs the forward part on a borrowed plan; the results that require grad
  // become the outputs of a CompiledBackward node holding that plan.
  static std::vector<Tensor> replay_differentiable(const std::shared_ptr<PlanPool>& pool,
                                                   std::span<const Tensor> inputs) {
    const Graph& g = pool->graph();
    // Where the gradients go, for this call's inputs.
    std::vector<autograd::Edge> edges;
    for (const GradTarget& t : g.grad_targets)
      edges.push_back(t.input >= 0 ? autograd::gradient_edge(inputs[static_cast<size_t>(t.input)])
                                   : t.edge);
    size_t k = pool->borrow();
    std::vector<Tensor> out;
    try {
      out = pool->plan(k).run(inputs);
    } catch (...) {
      pool->give_back(k);
      throw;
    }
    std::vector<CompiledBackward::Slot> slots;
    for (int r : g.grad_results) {
      const Tensor& t = out[static_cast<size_t>(r)];
      slots.push_back({Shape(t.sizes().begin(), t.sizes().end()), t.dtype(), t.device()});
    }
    auto node = std::make_shared<CompiledBackward>(pool, k, std::move(slots), std::move(edges));
    for (size_t slot = 0; slot < g.grad_results.size(); ++slot)
      autograd::set_history(out[static_cast<size_t>(g.grad_results[slot])], node,
                            static_cast<uint32_t>(slot));
    return out;
  }
};

CompiledFunction::CompiledFunction(Fn fn, CompileOptions options)
    : impl_(std::make_unique<Impl>()) {
  PLEXUS_CHECK(fn != nullptr, ErrorCode::InvalidArgument, "compile: the function is empty");
  PLEXUS_CHECK(options.max_captures >= 2, ErrorCode::InvalidArgument,
               "compile: max_captures must be at least 2 (two captures must agree), got {}",
               options.max_captures);
  impl_->fn = std::move(fn);
  impl_->options = std::move(options);
}
CompiledFunction::~CompiledFunction() = default;
CompiledFunction::CompiledFunction(CompiledFunction&&) noexcept = default;
CompiledFunction& CompiledFunction::operator=(CompiledFunction&&) noexcept = default;

std::vector<Tensor> CompiledFunction::call(std::span<const Tensor> inputs) {
  return impl_->call(inputs);
}

CompileStats CompiledFunction::stats() const { return impl_->stats; }

const Graph* CompiledFunction::graph() const {
  if (!impl_->last) return nullptr;
  if (impl_->last->pool) return &impl_->last->pool->graph();
  return impl_->last->plan ? &impl_->last->plan->graph() : nullptr;
}

std::string CompiledFunction::eager_reason() const {
  return impl_->last ? impl_->last->eager_reason : "";
}

void CompiledFunction::reset() {
  impl_->entries.clear();
  impl_->last = nullptr;
}

Graph trace(const std::function<std::vector<Tensor>(std::span<const Tensor>)>& fn,
            std::span<const Tensor> inputs, const TraceOptions& options) {
  CompileOptions co;
  co.names = options.names;
  Graph g;
  std::string broken;
  std::vector<Tensor> leaves;
  {
    Capture cap(inputs, co);
    std::optional<MetaOnlyGuard> meta;
    if (!options.run_kernels) meta.emplace();
    std::vector<Tensor> out = fn(inputs);
    meta.reset();
    g = cap.finish(out);
    broken = cap.broken();
    leaves = cap.grad_leaves();
  }
  if (!options.run_kernels)
    for (const Tensor& leaf : leaves) leaf.set_grad(Tensor());
  if (!broken.empty()) fail(ErrorCode::Unsupported, "trace: the graph breaks: {}", broken);
  return g;
}

}  // namespace plexus::graph
