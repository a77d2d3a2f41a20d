// plexus::compile: a cache of input signatures, each capturing until two
// captures agree, then replaying its Plan.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <list>
#include <optional>

#include "capture.h"
#include "passes.h"
#include "plan.h"
#include "plexus/autograd.h"
#include "plexus/error.h"
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
  bool operator==(const Signature&) const = default;
};

Signature signature_of(std::span<const Tensor> inputs) {
  Signature s{{}, autograd::is_grad_enabled()};
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
  return fmt::format("({}){}", fmt::join(parts, ", "), s.grad_enabled ? "" : " no_grad");
}

bool print_requested(const CompileOptions& o) {
  if (o.print) return true;
  const char* env = std::getenv("PLEXUS_PRINT_GRAPHS");
  return env && *env && std::string_view(env) != "0";
}

struct Entry {
  Signature sig;
  std::optional<Graph> last;  // the previous capture, waiting for one that agrees
  int captures = 0;
  std::unique_ptr<Plan> plan;
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
    entries.push_front(Entry{sig, std::nullopt, 0, nullptr, std::nullopt, "", 0});
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
      return out;
    }
    if (e.plan) {  // a verification capture
      std::string d = Graph::diff(*e.captured, g);
      if (!d.empty()) {
        e.eager_reason = fmt::format("a verifying capture differs from the compiled graph: {}", d);
        log().warn("{}: runs eagerly from now on: {}", options.name, e.eager_reason);
        e.plan.reset();
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
        e.plan = std::make_unique<Plan>(std::move(g), options.plugin_compilers);
        log().debug("{}: compiled {} ops ({} resolved once) for inputs {}", options.name,
                    e.plan->graph().num_calls(), e.plan->prepared(), signature_str(e.sig));
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
    Entry& e = find(signature_of(inputs));
    last = &e;
    if (!e.eager_reason.empty()) {
      ++stats.eager_calls;
      return fn(inputs);
    }
    if (e.plan) {
      ++e.replays;
      if (options.verify_every <= 0 ||
          e.replays % static_cast<uint64_t>(options.verify_every) != 0) {
        ++stats.replays;
        return e.plan->run(inputs);
      }
    }
    return capture(e, inputs);
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
  return impl_->last && impl_->last->plan ? &impl_->last->plan->graph() : nullptr;
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
