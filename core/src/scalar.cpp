#include "plexus/scalar.h"

#include <fmt/format.h>

namespace plexus {

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::Bool:
      return v_.i ? "True" : "False";
    case Kind::Int:
      return fmt::format("{}", v_.i);
    case Kind::Float:
      return fmt::format("{}", v_.d);
  }
  return "?";
}

bool Scalar::operator==(const Scalar& o) const {
  if (kind_ != o.kind_) return false;
  return kind_ == Kind::Float ? v_.d == o.v_.d : v_.i == o.v_.i;
}

}  // namespace plexus
