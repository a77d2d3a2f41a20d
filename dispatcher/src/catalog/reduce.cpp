#include "catalog/catalog.h"

namespace plexus {

void define_reduce_ops(Dispatcher& d) {}

}  // namespace plexus
