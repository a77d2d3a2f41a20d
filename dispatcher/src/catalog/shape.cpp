#include "catalog/catalog.h"

namespace plexus {

void define_shape_ops(Dispatcher& d) {}

}  // namespace plexus
