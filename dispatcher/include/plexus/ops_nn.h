// C++ API: reductions, matrix products, neural-network ops and cat.
#pragma once

#include <optional>
#include <vector>

#include "plexus/tensor.h"

namespace plexus {

}  // namespace plexus
