// Derivative rules: one per catalog op (keyed by the functional schema's
// name), written in catalog ops only, so backward runs through ordinary
// dispatch on whatever device holds the tensors. rules/<family>.cpp holds the
// rules of each catalog family.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "internal.h"
#include "plexus/op.h"
#include "plexus/value.h"

namespace plexus::autograd {

// A tensor saved for backward, with the version of its storage when saved: a
// later in-place write to it makes backward fail instead of using new values.
struct SavedTensor {
  Tensor tensor;
  uint64_t version = 0;
};

// The arguments of a recorded call, owned (a Value only borrows). Tensors are
// kept only where the rule asked to save them.
class SavedArgs {
 public:
  // A tensor list is kept as its tensors' sizes (ListSizes).
  using ListSizes = std::vector<Shape>;
  using Arg = std::variant<std::monostate, SavedTensor, Scalar, int64_t, std::vector<int64_t>,
                           double, bool, std::string, DType, Device, ListSizes>;
  std::vector<Arg> args;
};

class BackwardContext;
using BackwardFn = void (*)(BackwardContext& c);

struct Rule {
  std::string_view op;    // the functional op: "mul.Tensor"
  std::string_view node;  // "MulBackward"
  uint32_t save = 0;      // bit i: save tensor argument i
  bool save_result = false;
  BackwardFn backward = nullptr;  // null: not differentiable (results never require grad)
};

inline constexpr uint32_t arg(int i) {
  return 1u << i;
}

// What a rule's backward sees: the incoming gradient, the saved arguments and
// result, and where to put each input's gradient.
class BackwardContext {
 public:
  BackwardContext(const Node& node, const SavedArgs& saved, const SavedTensor* result,
                  const Tensor& grad, std::vector<Tensor>& out, const std::vector<bool>& needs,
                  const std::vector<Shape>& sizes,
                  std::vector<std::vector<Tensor>>& list_out)
      : node_(node), saved_(saved), result_(result), grad_(grad), out_(out), needs_(needs),
        sizes_(sizes), list_out_(list_out) {}

  const Tensor& grad() const { return grad_; }
  // Saved tensor argument i (checked against in-place writes since).
  const Tensor& input(size_t i) const;
  const Tensor& result() const;
  // Whether argument i was given (not None).
  bool has(size_t i) const;
  std::string string(size_t i) const;
  Scalar scalar(size_t i) const;
  int64_t integer(size_t i) const;
  std::optional<std::vector<int64_t>> int_list(size_t i) const;
  bool boolean(size_t i) const;
  double real(size_t i) const;
  // The sizes of tensor argument i, which requires grad (saved or not).
  IntArrayRef input_sizes(size_t i) const { return sizes_.at(i); }
  // Whether argument i requires a gradient.
  bool needs(size_t i) const { return i < needs_.size() && needs_[i]; }
  void set(size_t i, Tensor g) { out_[i] = std::move(g); }
  // Tensor-list argument i: its tensors' sizes, and the gradient of its k-th.
  const SavedArgs::ListSizes& list_sizes(size_t i) const;
  void set_list(size_t i, size_t k, Tensor g);

 private:
  const SavedArgs::Arg& at(size_t i) const;
  const Tensor& check(const SavedTensor& s, const char* what) const;
  const Node& node_;
  const SavedArgs& saved_;
  const SavedTensor* result_;
  const Tensor& grad_;
  std::vector<Tensor>& out_;
  const std::vector<bool>& needs_;
  const std::vector<Shape>& sizes_;
  std::vector<std::vector<Tensor>>& list_out_;
};

// Rules by op name. find() also maps an in-place op ("mul_.Tensor") to its
// functional rule.
const Rule* find_rule(const Operator& op);

// Registration, one function per family (rules/<family>.cpp).
using RuleTable = std::vector<Rule>;
void add_binary_rules(RuleTable& t);
void add_unary_rules(RuleTable& t);
void add_pointwise_rules(RuleTable& t);
void add_reduce_rules(RuleTable& t);
void add_matmul_rules(RuleTable& t);
void add_softmax_rules(RuleTable& t);
void add_copy_rules(RuleTable& t);
void add_compare_rules(RuleTable& t);
void add_layer_norm_rules(RuleTable& t);
void add_embedding_rules(RuleTable& t);
void add_shape_rules(RuleTable& t);
void add_conv_rules(RuleTable& t);
void add_pool_rules(RuleTable& t);
void add_loss_rules(RuleTable& t);
void add_random_rules(RuleTable& t);

}  // namespace plexus::autograd
