// How each op runs on each backend: a native kernel, the catalog's composite,
// the cpu fallback, or not at all. The same order of choices the dispatcher
// makes for a call; `plexus ops` prints it as a matrix.
#pragma once

#include <cstdint>
#include <string_view>

#include "plexus/device.h"
#include "plexus/dtype.h"

namespace plexus {

class Operator;

enum class Route : uint8_t {
  Native,     // the backend registered a kernel for the dtype
  Composite,  // no kernel; the catalog decomposes the op into others
  Fallback,   // neither; runs on the cpu when the fallback policy is `cpu`
  Missing,    // nothing runs it
};
// "native", "composite", "fallback", "missing".
std::string_view route_name(Route r);

// The dtypes of one op on one backend, split by route. The dtypes considered
// are those the catalog lists for the op, plus any a kernel was registered for.
struct Coverage {
  DTypeSet native, composite, fallback, missing;

  DTypeSet of(Route r) const;
  // The first route, in the order above, that covers any dtype (Missing when none).
  Route route() const;
  // True when one route covers every dtype.
  bool uniform() const;
};

// The coverage of `op` (through the op that holds its kernels) on `backend`.
// A composite may still decline some arguments at run time; those then take
// the fallback policy, which this does not show.
Coverage coverage(const Operator& op, DeviceType backend);

}  // namespace plexus
