// error_of(f): the plexus::Error that f raises; fails the test when it raises none.
#pragma once

#include <catch2/catch.hpp>
#include <stdexcept>

#include "plexus/error.h"

namespace plexus::testing {

template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected a plexus::Error");
  throw std::logic_error("unreachable");
}

}  // namespace plexus::testing
