#include "plexus/coverage.h"

#include "plexus/op.h"

namespace plexus {

std::string_view route_name(Route r) {
  switch (r) {
    case Route::Native:
      return "native";
    case Route::Composite:
      return "composite";
    case Route::Fallback:
      return "fallback";
    case Route::Missing:
      return "missing";
  }
  return "?";
}

DTypeSet Coverage::of(Route r) const {
  switch (r) {
    case Route::Native:
      return native;
    case Route::Composite:
      return composite;
    case Route::Fallback:
      return fallback;
    case Route::Missing:
      return missing;
  }
  return {};
}

Route Coverage::route() const {
  for (Route r : {Route::Native, Route::Composite, Route::Fallback})
    if (!of(r).empty()) return r;
  return Route::Missing;
}

bool Coverage::uniform() const {
  int routes = 0;
  for (Route r : {Route::Native, Route::Composite, Route::Fallback, Route::Missing})
    routes += !of(r).empty();
  return routes <= 1;
}

// Mirrors run_kernel (run.cpp): kernel, then composite, then the cpu fallback.
Coverage coverage(const Operator& op, DeviceType backend) {
  const Operator& kop = op.kernel_op();
  const KernelEntry* k = kop.kernel(backend);
  const KernelEntry* cpu = backend == kCPU ? nullptr : kop.kernel(kCPU);
  DTypeSet all = op.catalog_dtypes() | kop.catalog_dtypes();
  // Ops a plugin defined list no dtypes: any dtype reaches their kernels.
  if (all.empty()) all = DTypeSet::all();
  if (k) all = all | k->dtypes;

  Coverage c;
  c.native = k ? all & k->dtypes : DTypeSet{};
  DTypeSet rest = DTypeSet::from_bits(all.bits() & ~c.native.bits());
  if (op.composite()) {
    c.composite = rest;
    return c;
  }
  c.fallback = cpu ? rest & cpu->dtypes : DTypeSet{};
  c.missing = DTypeSet::from_bits(rest.bits() & ~c.fallback.bits());
  return c;
}

}  // namespace plexus
