#include "catalog/catalog.h"

namespace plexus {

void define_nn_ops(Dispatcher& d) {}

}  // namespace plexus
