// C++ API: the random ops (plexus/ops_random.h).
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// A seed crosses the dispatcher as an int64 with the same bits.
Value bits(uint64_t v) {
  return Value::integer(static_cast<int64_t>(v));
}

// The offset is a count of elements drawn: at most 2^63 - 1.
Value offset_value(uint64_t offset) {
  PLEXUS_CHECK_ARG(offset <= static_cast<uint64_t>(INT64_MAX), "offset",
                   "must be below 2^63, got {}", offset);
  return Value::integer(static_cast<int64_t>(offset));
}

}  // namespace

const Tensor& uniform_(const Tensor& self, double from, double to, uint64_t seed, uint64_t offset) {
  static const Operator& op = detail::op("uniform_");
  detail::call(op, {Value::tensor(self), Value::real(from), Value::real(to), bits(seed),
                    offset_value(offset)});
  return self;
}

const Tensor& normal_(const Tensor& self, double mean, double std, uint64_t seed, uint64_t offset) {
  static const Operator& op = detail::op("normal_");
  detail::call(op, {Value::tensor(self), Value::real(mean), Value::real(std), bits(seed),
                    offset_value(offset)});
  return self;
}

const Tensor& bernoulli_(const Tensor& self, double p, uint64_t seed, uint64_t offset) {
  static const Operator& op = detail::op("bernoulli_.float");
  detail::call(op, {Value::tensor(self), Value::real(p), bits(seed), offset_value(offset)});
  return self;
}

}  // namespace plexus
