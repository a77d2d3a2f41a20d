// Cases the forward parity test runs besides the conformance suite's: ops
// the suite has no cases for (to.dtype, a direct composite over copy_).
#include <string>

#include "parity/forward_parity.h"

namespace plexus::parity {

namespace conf = conformance;

namespace {

// to.dtype from the case's dtype into every dtype: values in range, then the
// special values (NaN, infinities, extremes), whose conversion to integers
// PyTorch leaves to the C++ cast (see the differences table).
void to_dtype_cases(conf::CaseSet& set) {
  const DType from = set.dtype();
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType to = static_cast<DType>(d);
    const std::string name(dtype_name(to));
    for (bool special : {false, true}) {
      conf::Case& c = set.add((special ? "special_to_" : "to_") + name);
      c.tensor("self", special ? conf::from_values(from, {4, 5}, conf::special_values(from))
                               : conf::random(c.rng, from, {4, 5}, {-100, 100}),
               conf::Transposed);
      c.arg("dtype", to);
      c.ref([to](const conf::Inputs& in) { return conf::expect(ref::convert(in["self"], to)); });
    }
  }
}

}  // namespace

std::vector<conf::OpInfo> parity_op_infos() {
  return {{"to.dtype", to_dtype_cases, DTypeSet::all()}};
}

}  // namespace plexus::parity
