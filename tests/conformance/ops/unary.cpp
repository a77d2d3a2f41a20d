// Conformance cases of the unary ops.
#include "suite.h"

namespace plexus::conformance {

void add_unary_ops(std::vector<OpInfo>& v) { (void)v; }

}  // namespace plexus::conformance
