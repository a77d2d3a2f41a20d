// The autograd dispatch layer (Layer::Autograd): records a RuleNode for each
// call whose inputs require grad, then redispatches below itself.
#include <fmt/format.h>

#include <mutex>
#include <unordered_map>

#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "rule.h"

namespace plexus::autograd {
namespace {

// A recorded call: its rule, saved arguments and result, and one edge and
// input description per argument that required grad.
class RuleNode final : public Node {
 public:
  RuleNode(const Rule& rule, SavedArgs saved) : rule_(rule), saved_(std::move(saved)) {}
  std::string name() const override { return std::string(rule_.node); }

  std::vector<Tensor> apply(const Tensor& grad) override {
    if (released_)
      fail(ErrorCode::InvalidArgument,
           "{}: trying to backward through the graph a second time (its saved values were "
           "freed); pass retain_graph=true to the first backward",
           name());
    std::vector<Tensor> by_arg(needs_.size());
    std::vector<std::vector<Tensor>> by_list(needs_.size());
    BackwardContext c(*this, saved_, saved_result_ ? &*saved_result_ : nullptr, grad, by_arg,
                      needs_, sizes_, by_list);
    rule_.backward(c);
    std::vector<Tensor> out(next_.size());
    for (size_t e = 0; e < next_.size(); ++e) {
      size_t a = arg_of_edge_[e], k = elem_of_edge_[e];
      const Tensor* g = &by_arg[a];
      if (k != kNotInList) g = k < by_list[a].size() ? &by_list[a][k] : nullptr;
      if (g && g->defined()) out[e] = conform(*g, inputs_[e], *this);
    }
    return out;
  }
  void release() override {
    saved_.args.clear();
    saved_result_.reset();
    released_ = true;
  }

  static constexpr size_t kNotInList = SIZE_MAX;
  // Argument i of the call (element k of a tensor list) requires grad: an
  // edge to where its gradient goes.
  void add_input(size_t i, const Tensor& t, size_t k = kNotInList) {
    if (needs_.size() <= i) {
      needs_.resize(i + 1, false);
      sizes_.resize(i + 1);
    }
    needs_[i] = true;
    if (k == kNotInList) sizes_[i].assign(t.sizes().begin(), t.sizes().end());
    next_.push_back(gradient_edge(t));
    arg_of_edge_.push_back(i);
    elem_of_edge_.push_back(k);
    inputs_.push_back(InputInfo::of(t));
  }
  // The result is saved detached: it shares the result's storage (and so its
  // version counter) but not its autograd state, which holds this node. A
  // strong reference back to the result would be a cycle (result -> grad_fn
  // -> saved result) that leaks every result whose graph is never run
  // backward, such as an evaluation forward under grad mode.
  void save_result(const Tensor& r) {
    saved_result_ = SavedTensor{r.detach(), r.storage()->version()};
  }

 private:
  const Rule& rule_;
  SavedArgs saved_;
  std::optional<SavedTensor> saved_result_;
  std::vector<bool> needs_;
  std::vector<Shape> sizes_;  // by argument, for those that require grad
  std::vector<size_t> arg_of_edge_, elem_of_edge_;
  std::vector<InputInfo> inputs_;
  bool released_ = false;
};

SavedArgs::Arg save_arg(const Value& v, bool keep_tensor) {
  switch (v.tag()) {
    case Value::Tag::None: return std::monostate{};
    case Value::Tag::Tensor: {
      if (!keep_tensor) return std::monostate{};
      const Tensor& t = v.to_tensor();
      return SavedTensor{t, t.storage()->version()};
    }
    case Value::Tag::TensorList: {
      SavedArgs::ListSizes sizes;
      for (const Tensor& t : v.to_tensor_list()) sizes.emplace_back(t.sizes().begin(), t.sizes().end());
      return sizes;
    }
    case Value::Tag::Scalar: return v.to_scalar();
    case Value::Tag::Int: return v.to_int();
    case Value::Tag::IntList: {
      IntArrayRef l = v.to_int_list();
      return std::vector<int64_t>(l.begin(), l.end());
    }
    case Value::Tag::Double: return v.to_double();
    case Value::Tag::Bool: return v.to_bool();
    case Value::Tag::String: return std::string(v.to_string());
    case Value::Tag::DType: return v.to_dtype();
    case Value::Tag::Device: return v.to_device();
  }
  return std::monostate{};
}

bool any_requires_grad(std::span<const Value> args) {
  for (const Value& v : args) {
    if (v.is_tensor()) {
      if (requires_grad(v.to_tensor())) return true;
    } else if (v.tag() == Value::Tag::TensorList) {
      for (const Tensor& t : v.to_tensor_list())
        if (requires_grad(t)) return true;
    }
  }
  return false;
}

// Runs the op below this layer with autograd off for anything it calls: the
// ops a kernel or composite calls, and the views its meta function takes (the
// recorded node covers them all).
Tensor run_below(const Operator& op, DispatchKeys keys, std::span<const Value> args) {
  LayerGuard off(Layer::Autograd, LayerGuard::Mode::Exclude);
  BelowGuard below;
  return Dispatcher::get().redispatch(op, keys, args);
}

Tensor record(const Rule& rule, const Operator& op, DispatchKeys keys,
              std::span<const Value> args) {
  const bool inplace = op.kind() == OpKind::Inplace;
  if (inplace) {
    const Tensor& self = args[0].to_tensor();
    AutogradMeta* m = meta_if(self);
    if (m && m->requires_grad && !m->grad_fn)
      fail(ErrorCode::InvalidArgument,
           "{}: a leaf tensor that requires grad is used in an in-place op; do it under "
           "NoGradGuard, or on a clone",
           op.name());
    if (rule.save & arg(0))
      fail(ErrorCode::Unsupported,
           "{}: the gradient needs self's value before the in-place op; call the "
           "out-of-place form ({}) instead",
           op.name(), rule.op);
    if (m && m->is_view)
      fail(ErrorCode::Unsupported,
           "{}: in-place ops on a view of a tensor that requires grad are not supported yet; "
           "write into a clone",
           op.name());
  }
  SavedArgs saved;
  saved.args.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    saved.args.push_back(save_arg(args[i], (rule.save >> i) & 1u));
  auto node = std::make_shared<RuleNode>(rule, std::move(saved));
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_tensor() && requires_grad(args[i].to_tensor())) {
      node->add_input(i, args[i].to_tensor());
    } else if (args[i].tag() == Value::Tag::TensorList) {
      std::span<const Tensor> list = args[i].to_tensor_list();
      for (size_t k = 0; k < list.size(); ++k)
        if (requires_grad(list[k])) node->add_input(i, list[k], k);
    }
  }
  Tensor result = run_below(op, keys, args);
  if (!is_floating(result.dtype())) return result;
  if (rule.save_result) node->save_result(result);
  set_history(result, std::move(node));
  return result;
}

Tensor autograd_layer(void*, const Operator& op, DispatchKeys keys, std::span<const Value> args,
                      Layer) {
  Dispatcher& d = Dispatcher::get();
  if (!is_grad_enabled() || !any_requires_grad(args)) return d.redispatch(op, keys, args);
  if (op.kind() == OpKind::Out)
    fail(ErrorCode::Unsupported,
         "{}: out= calls don't record gradients, and an input requires grad; call the "
         "functional form, or run it under NoGradGuard",
         op.name());
  const Rule* rule = find_rule(op);
  if (!rule) {
    // A composite without a rule of its own (matmul, linear, mse_loss, to):
    // its decomposition runs through this layer, op by op.
    if (op.kind() == OpKind::Direct && op.composite()) {
      KernelCall call{op, args, keys.device, DType::F32, {}};
      op.composite()(nullptr, call);
      if (!call.declined) return call.result;
    }
    fail(ErrorCode::Unsupported, "{} has no derivative rule, and an input requires grad",
         op.name());
  }
  if (!rule->backward) return run_below(op, keys, args);  // not differentiable
  return record(*rule, op, keys, args);
}

}  // namespace

// ---- BackwardContext ------------------------------------------------------------

const SavedArgs::Arg& BackwardContext::at(size_t i) const {
  if (i >= saved_.args.size())
    fail(ErrorCode::Internal, "{}: the rule reads argument {} of {}", node_.name(), i,
         saved_.args.size());
  return saved_.args[i];
}

const Tensor& BackwardContext::check(const SavedTensor& s, const char* what) const {
  uint64_t now = s.tensor.storage()->version();
  if (now != s.version) {
    const char* writer = s.tensor.storage()->last_writer();
    fail(ErrorCode::InvalidArgument,
         "{}: {} saved for backward was modified by an in-place op ({}) after it was saved "
         "(version {}, expected {}); clone it before the in-place op",
         node_.name(), what, writer ? writer : "unknown", now, s.version);
  }
  return s.tensor;
}

const Tensor& BackwardContext::input(size_t i) const {
  const auto* s = std::get_if<SavedTensor>(&at(i));
  if (!s) fail(ErrorCode::Internal, "{}: tensor argument {} was not saved", node_.name(), i);
  return check(*s, "an input");
}
const Tensor& BackwardContext::result() const {
  if (!result_) fail(ErrorCode::Internal, "{}: the result was not saved", node_.name());
  return check(*result_, "its result");
}
bool BackwardContext::has(size_t i) const {
  return !std::holds_alternative<std::monostate>(at(i));
}
std::string BackwardContext::string(size_t i) const {
  const auto* s = std::get_if<std::string>(&at(i));
  if (!s) fail(ErrorCode::Internal, "{}: argument {} is not a string", node_.name(), i);
  return *s;
}
Scalar BackwardContext::scalar(size_t i) const {
  const auto& a = at(i);
  if (const auto* s = std::get_if<Scalar>(&a)) return *s;
  if (const auto* n = std::get_if<int64_t>(&a)) return Scalar(*n);
  if (const auto* d = std::get_if<double>(&a)) return Scalar(*d);
  fail(ErrorCode::Internal, "{}: argument {} is not a number", node_.name(), i);
}
int64_t BackwardContext::integer(size_t i) const {
  const auto* n = std::get_if<int64_t>(&at(i));
  if (!n) fail(ErrorCode::Internal, "{}: argument {} is not an int", node_.name(), i);
  return *n;
}
std::optional<std::vector<int64_t>> BackwardContext::int_list(size_t i) const {
  const auto& a = at(i);
  if (std::holds_alternative<std::monostate>(a)) return std::nullopt;
  if (const auto* l = std::get_if<std::vector<int64_t>>(&a)) return *l;
  if (const auto* n = std::get_if<int64_t>(&a)) return std::vector<int64_t>{*n};
  fail(ErrorCode::Internal, "{}: argument {} is not an int list", node_.name(), i);
}
bool BackwardContext::boolean(size_t i) const {
  const auto* b = std::get_if<bool>(&at(i));
  if (!b) fail(ErrorCode::Internal, "{}: argument {} is not a bool", node_.name(), i);
  return *b;
}
const SavedArgs::ListSizes& BackwardContext::list_sizes(size_t i) const {
  const auto* l = std::get_if<SavedArgs::ListSizes>(&at(i));
  if (!l) fail(ErrorCode::Internal, "{}: argument {} is not a tensor list", node_.name(), i);
  return *l;
}
void BackwardContext::set_list(size_t i, size_t k, Tensor g) {
  std::vector<Tensor>& v = list_out_.at(i);
  if (v.size() <= k) v.resize(k + 1);
  v[k] = std::move(g);
}
double BackwardContext::real(size_t i) const {
  return scalar(i).to_double();
}

// ---- rules and installation -----------------------------------------------------------

const Rule* find_rule(const Operator& op) {
  static const std::unordered_map<std::string_view, Rule> table = [] {
    RuleTable t;
    add_binary_rules(t);
    add_unary_rules(t);
    add_pointwise_rules(t);
    add_reduce_rules(t);
    add_matmul_rules(t);
    add_softmax_rules(t);
    add_copy_rules(t);
    add_compare_rules(t);
    add_layer_norm_rules(t);
    add_embedding_rules(t);
    add_shape_rules(t);
    add_conv_rules(t);
    add_pool_rules(t);
    add_loss_rules(t);
    add_random_rules(t);
    std::unordered_map<std::string_view, Rule> m;
    for (const Rule& r : t) m.emplace(r.op, r);
    return m;
  }();
  const std::string& name = op.name();
  if (auto it = table.find(name); it != table.end()) return &it->second;
  if (op.kind() != OpKind::Inplace) return nullptr;
  // "mul_.Tensor" -> "mul.Tensor", "exp_" -> "exp"
  std::string functional = name;
  size_t dot = functional.find('.');
  size_t end = dot == std::string::npos ? functional.size() : dot;
  if (end == 0 || functional[end - 1] != '_') return nullptr;
  functional.erase(end - 1, 1);
  if (auto it = table.find(functional); it != table.end()) return &it->second;
  return nullptr;
}

Differentiable differentiable(const Operator& op) {
  const Operator* f = &op;
  if (op.kind() == OpKind::Out || op.kind() == OpKind::Inplace) {
    for (const Operator* o : Dispatcher::get().ops())
      if (&o->kernel_op() == &op.kernel_op() && o->kind() == OpKind::Functional) f = o;
  }
  if (const Rule* r = find_rule(*f)) return r->backward ? Differentiable::Yes : Differentiable::No;
  if (f->kind() == OpKind::Direct && f->composite()) return Differentiable::Composite;
  return Differentiable::Missing;
}

std::string_view differentiable_name(Differentiable d) {
  switch (d) {
    case Differentiable::Yes: return "yes";
    case Differentiable::Composite: return "composite";
    case Differentiable::No: return "no";
    case Differentiable::Missing: return "missing";
  }
  return "?";
}

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dispatcher& d = Dispatcher::get();
    d.set_layer_kernel(Layer::Autograd, autograd_layer, nullptr);
    d.enable_layer(Layer::Autograd, true);
    plexus::detail::g_view_hook = view_hook;
  });
}

}  // namespace plexus::autograd
