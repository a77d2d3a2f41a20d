#include "catalog/catalog.h"

namespace plexus {

void define_unary_ops(Dispatcher& d) {}

}  // namespace plexus
