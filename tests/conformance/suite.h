// The conformance suite's case database: what one test case of one op is, and
// how the per-family files (ops/*.cpp) describe the cases of their ops.
//
// A case names the arguments of one call (by schema argument name), how each
// tensor argument is laid out in device memory, a reference that computes the
// expected result from the inputs' logical values, and a tolerance. The runner
// turns every case into calls of the op's functional, out and in-place forms on
// the plugin's device and compares element by element.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "plexus/dtype.h"
#include "plexus/scalar.h"
#include "reference/tensor.h"

namespace plexus::conformance {

// ---- Random values -----------------------------------------------------------

// A case's random source: seeded from (run seed, op, dtype, case name), so a
// case generates the same values whether it runs alone or with all others.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : gen_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  // Uniform in [lo, hi], both included.
  int64_t integer(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  bool coin() { return integer(0, 1) == 1; }
  uint64_t bits() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

// The smallest and largest value of a dtype (as doubles; exact for all but
// int64's extremes, see dtype_min_int/dtype_max_int).
double dtype_lowest(DType t);
double dtype_max(DType t);
int64_t dtype_min_int(DType t);
int64_t dtype_max_int(DType t);
// Machine epsilon of a floating dtype (2^-10 for float16, 2^-7 for bfloat16, ...); 0 for integers.
double dtype_eps(DType t);
// Spacing of floating values around |v| in dtype t (the value of one ULP there).
double ulp_of(DType t, double v);

// Values of a range, per dtype: floating values uniform in [lo, hi] rounded to
// the dtype; integers uniform in [lo, hi] clamped to the dtype's range; bool 0/1.
struct Range {
  double lo = -4, hi = 4;
};
ref::Tensor random(Rng& rng, DType t, const ref::Sizes& sizes, Range r = {});
// Floating tensors holding small integers in [lo, hi]: sums and products of
// them are exact in every floating dtype while they stay small, so results
// must match exactly whatever order a kernel adds in.
ref::Tensor small_integers(Rng& rng, DType t, const ref::Sizes& sizes, int64_t lo, int64_t hi);
// The special values of a dtype, once each: floating: NaN, +-inf, +-0, the
// smallest subnormal and normal, the largest value, +-1, 0.5, -2.5 ...;
// integers: min, min+1, -1, 0, 1, max-1, max; bool: false, true.
std::vector<double> special_values(DType t);
// A tensor of `sizes` holding `values` in order, cycling when there are fewer.
ref::Tensor from_values(DType t, const ref::Sizes& sizes, const std::vector<double>& values);

// ---- Cases -------------------------------------------------------------------

// How a tensor argument is laid out in device memory (flags, combinable). The
// logical values are the same in every layout, except that Expanded repeats
// the values at index 0 along the first dim of size > 1 (which it stores once,
// with stride 0).
enum Layout : uint32_t {
  Contiguous = 0,
  Offset = 1u << 0,      // starts a few elements into its storage
  Transposed = 1u << 1,  // dims stored in reverse order (a permuted view)
  Strided = 1u << 2,     // innermost stored dim taken with step 2
  Expanded = 1u << 3,    // one dim broadcast with stride 0
  Pitched = 1u << 4,     // rows contiguous with a gap after each (a slice of the last dim)
};
std::string layout_str(uint32_t layout);  // "transposed+offset", "contiguous"

struct TensorArg {
  ref::Tensor values;
  uint32_t layout = Contiguous;
  std::string alias;  // name of an earlier tensor argument this one is (the same device tensor)
};
struct NoneArg {};
// One argument of a call. Numbers become the schema's type (Scalar, int, float).
using Arg = std::variant<NoneArg, TensorArg, std::vector<TensorArg>, Scalar, int64_t, double,
                         bool, std::vector<int64_t>, std::string, DType>;

// The logical values of a case's tensor arguments, as the reference sees them.
class Inputs {
 public:
  // The tensor argument `name`; throws std::invalid_argument when there is none.
  const ref::Tensor& operator[](const std::string& name) const;
  // The tensor-list argument `name`.
  const std::vector<ref::Tensor>& list(const std::string& name) const;
  // True when a Tensor? argument was given (not None).
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }

  std::map<std::string, ref::Tensor> tensors_;
  std::map<std::string, std::vector<ref::Tensor>> lists_;
};

// What the call must produce.
struct Expected {
  ref::Tensor values;  // in the output dtype; floating values unrounded (compared after rounding)
  // Optional, one per element: the size of the terms an accumulation added up
  // (e.g. sum of |a_ik * b_kj| for mm); the tolerance's `acc` scales it.
  std::vector<double> scale;
  // For ops that write several arguments (direct ops, Note [Ops that write
  // several tensors]): the expected values of each written tensor, by argument
  // name, "name[k]" for element k of a list. `values` is then unused.
  std::map<std::string, ref::Tensor> written;
};

// How close is close enough, per element. An element passes when
//   |got - expected| <= max(ulps * ulp(expected), atol + rtol * |expected|)
//                       + acc * eps(dtype) * scale[i]
// NaN must meet NaN, infinities must match exactly. Integral outputs always
// match exactly.
struct Tolerance {
  double ulps = 0;
  double atol = 0;
  double rtol = 0;
  double acc = 0;
  bool signed_zero = false;  // -0 and +0 count as different
};

struct Case {
  std::string name;  // unique within (op, dtype): "bcast_rhs", "special"
  std::vector<std::pair<std::string, Arg>> args;  // by schema argument name; the rest take defaults
  std::function<Expected(const Inputs&)> reference;
  Tolerance tol;
  // The call must fail with a plexus::Error whose message contains this text
  // (empty: any message), instead of producing a result. `reference` is not used.
  std::optional<std::string> expect_error;
  bool inplace = true;    // run the in-place form too (when the op has one and it fits)
  // Also run the out form with out = the first input (exact aliasing), and for
  // elementwise ops with out = the second input ("out_other").
  bool out_self = false;
  uint32_t out_layout = Contiguous;  // layout of `out` in the out form
  bool stress = false;    // also run from 8 threads at once, each with its own values
  Rng rng;

  Case& arg(std::string arg_name, Arg a);
  Case& tensor(std::string arg_name, ref::Tensor values, uint32_t layout = Contiguous);
  Case& alias(std::string arg_name, std::string of);  // arg_name is the same tensor as `of`
  Case& ref(std::function<Expected(const Inputs&)> f) { reference = std::move(f); return *this; }
  Case& tolerance(Tolerance t) { tol = t; return *this; }
};

// The cases of one op for one dtype, as a generator adds them.
class CaseSet {
 public:
  CaseSet(uint64_t seed, std::string op, DType dtype) : seed_(seed), op_(std::move(op)), dtype_(dtype) {}
  // A new case; its rng is seeded from the run's seed, the op, the dtype and `name`.
  Case& add(std::string name);
  DType dtype() const { return dtype_; }
  const std::string& op() const { return op_; }
  std::vector<Case>& cases() { return cases_; }

 private:
  uint64_t seed_;
  std::string op_;
  DType dtype_;
  std::vector<Case> cases_;
};

// One op's entry in the suite: the op kernels register on ("add.out",
// "copy_") and what generates its cases for a dtype the plugin registered.
struct OpInfo {
  std::string op;
  std::function<void(CaseSet&)> generate;
  // Direct composites (matmul, mse_loss) have no catalog dtypes: the dtypes
  // their cases are generated for. Ops with catalog dtypes (kernel ops, and
  // direct ops that write several tensors such as adam_step_) leave it empty.
  DTypeSet dtypes = {};
};

// ---- Shared generators -------------------------------------------------------

// The standard cases of an elementwise op over its tensor inputs `inputs`
// (first one is `self`): 0-d, empty, one element, odd and prime sizes, 3-D, a
// large case, broadcasting on either side and with a 0-d tensor, transposed,
// strided, offset and expanded inputs, an out with gaps, all inputs the same
// tensor, special values (every pair of them for binary ops), and a stress case.
struct ElementwiseSpec {
  std::vector<std::string> inputs;
  // Values of input k (0-based) for a case; default: random(rng, dtype, sizes).
  std::function<ref::Tensor(Rng&, DType, const ref::Sizes&, size_t k)> make;
  // Non-tensor arguments every case passes (alpha, rounding_mode, ...).
  std::vector<std::pair<std::string, Arg>> args;
  std::function<Expected(const Inputs&)> reference;
  Tolerance tol;
  bool special = true;      // add the special-values case
  bool aliasing = true;     // add the case where every input is the same tensor
  bool inplace = true;      // the op has an in-place form where self is the output
  std::string prefix;       // prepended to every case name ("alpha_")
  std::vector<std::string> only;  // when not empty: just these cases (names without prefix)
};
void elementwise_cases(CaseSet& set, const ElementwiseSpec& spec);

// Expected{values} shorthand.
inline Expected expect(ref::Tensor t) { return Expected{std::move(t), {}}; }

// The entries of every family, in catalog order (ops/*.cpp).
std::vector<OpInfo> all_op_infos();
void add_copy_ops(std::vector<OpInfo>& v);       // copy_, fill_
void add_unary_ops(std::vector<OpInfo>& v);      // neg ... clamp
void add_binary_ops(std::vector<OpInfo>& v);     // add ... minimum
void add_compare_ops(std::vector<OpInfo>& v);    // eq ... ge, where
void add_reduce_ops(std::vector<OpInfo>& v);     // sum ... argmin
void add_matmul_ops(std::vector<OpInfo>& v);     // mm, bmm, addmm
void add_softmax_ops(std::vector<OpInfo>& v);     // softmax, log_softmax
void add_layer_norm_ops(std::vector<OpInfo>& v);  // layer_norm
void add_conv_ops(std::vector<OpInfo>& v);        // conv2d
void add_pool_ops(std::vector<OpInfo>& v);        // max_pool2d
void add_embedding_ops(std::vector<OpInfo>& v);   // embedding
void add_pointwise_ops(std::vector<OpInfo>& v);  // lerp, addcmul, addcdiv
void add_shape_ops(std::vector<OpInfo>& v);      // cat
void add_optim_ops(std::vector<OpInfo>& v);      // adam_step_, sgd_step_ (and .list)
void add_random_ops(std::vector<OpInfo>& v);     // uniform_, normal_, bernoulli_
void add_loss_ops(std::vector<OpInfo>& v);       // mse_loss (a direct composite)
void add_matmul_composite_ops(std::vector<OpInfo>& v);  // matmul, linear (direct composites)

}  // namespace plexus::conformance
