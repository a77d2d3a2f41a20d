// Conformance cases of the compare ops.
#include "suite.h"

namespace plexus::conformance {

void add_compare_ops(std::vector<OpInfo>& v) { (void)v; }

}  // namespace plexus::conformance
